import { Trust } from '../context-release/trust.js';
import type { ApproverProvenance } from './approver-provenance.js';
import { InMemoryProvenanceContentStore } from './in-memory-provenance-content-store.js';
import { passagesOf } from './extraction-passages.js';
import { type LabelledContent, labelledText } from './labelled-content.js';
import type { KeptContent, ProvenanceContentStore } from './provenance-content-store.interface.js';

export { DEFAULT_PROVENANCE_CONTENTS_CAPACITY } from './in-memory-provenance-content-store.js';

/**
 * The raw untrusted texts of the windows that parked a call for a human (a pending approval receipt, a review
 * item), by content fingerprint, so that an approver can be shown them through a context release route
 * (`ApprovalService.untrustedContent`, ADR 0033, 0042). Kept in the module's `provenance.contents` store
 * (default: this process's memory, bounded), never with the receipt or the item, never in evidence; deleted
 * once the receipt or item is decided. A text the store does not hold is reported as unavailable.
 */
export class ProvenanceContents {
  constructor(private readonly store: ProvenanceContentStore = new InMemoryProvenanceContentStore()) {}

  /**
   * Keeps the text of every untrusted item that has one (an item `labelContent` made), and of the source
   * passages of every extracted value among them.
   */
  async keep(items: readonly LabelledContent[], now: Date): Promise<void> {
    const texts = new Map<string, KeptContent>();
    for (const item of items.flatMap((entry) => [entry, ...passagesOf(entry)])) {
      if (item.label.trust !== Trust.Untrusted) continue;
      const text = labelledText(item);
      if (text !== undefined) texts.set(item.label.fingerprint, { fingerprint: item.label.fingerprint, text });
    }
    if (texts.size > 0) await this.store.keep([...texts.values()], now);
  }

  /** The text whose fingerprint is `fingerprint`, while the store keeps it. */
  text(fingerprint: string): Promise<string | undefined> {
    return this.store.text(fingerprint);
  }

  /** Deletes the texts a decided receipt or item recorded. */
  async forget(provenance: ApproverProvenance | null | undefined): Promise<void> {
    const fingerprints = (provenance?.untrustedContent ?? []).map((reference) => reference.fingerprint);
    if (fingerprints.length > 0) await this.store.forget(fingerprints);
  }
}
