import { Trust } from '../context-release/trust.js';
import { rememberBounded } from '../shared/remember-bounded.js';
import { type LabelledContent, labelledText } from './labelled-content.js';

/** Default number of untrusted texts kept for approvers: 1,000, oldest forgotten first. */
export const DEFAULT_PROVENANCE_CONTENTS_CAPACITY = 1_000;

/**
 * The raw untrusted texts of the windows that parked a call for a human (a pending approval receipt, a
 * review item), by content fingerprint, so that an approver can be shown them through a context release
 * route (`ApprovalService.untrustedContent`, ADR 0033). In process memory only and bounded: never stored
 * with the receipt or the item, never in evidence. A text forgotten, or parked by another process, is
 * reported as unavailable.
 */
export class ProvenanceContents {
  private readonly texts = new Map<string, string>();

  constructor(private readonly capacity = DEFAULT_PROVENANCE_CONTENTS_CAPACITY) {}

  /** Keeps the text of every untrusted item that has one (an item `labelContent` made). */
  keep(items: readonly LabelledContent[]): void {
    for (const item of items) {
      if (item.label.trust !== Trust.Untrusted) continue;
      const text = labelledText(item);
      if (text === undefined) continue;
      rememberBounded(this.texts, item.label.fingerprint, text, this.capacity);
    }
  }

  /** The text whose fingerprint is `fingerprint`, while this process still keeps it. */
  text(fingerprint: string): string | undefined {
    return this.texts.get(fingerprint);
  }
}
