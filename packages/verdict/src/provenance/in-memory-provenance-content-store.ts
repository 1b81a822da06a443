import { rememberBounded } from '../shared/remember-bounded.js';
import type { KeptContent, ProvenanceContentStore } from './provenance-content-store.interface.js';

/** Default number of untrusted texts kept in memory for approvers: 1,000, oldest forgotten first. */
export const DEFAULT_PROVENANCE_CONTENTS_CAPACITY = 1_000;

/**
 * The default {@link ProvenanceContentStore}: this process's memory, bounded (oldest forgotten first). An
 * approver served by another process finds nothing here: use `TypeOrmProvenanceContentStore` when approvals and
 * reviews are decided in more than one process.
 *
 * @example new InMemoryProvenanceContentStore(5_000)
 */
export class InMemoryProvenanceContentStore implements ProvenanceContentStore {
  private readonly texts = new Map<string, { readonly text: string; readonly keptAt: Date }>();

  constructor(private readonly capacity = DEFAULT_PROVENANCE_CONTENTS_CAPACITY) {}

  async keep(texts: readonly KeptContent[], now: Date): Promise<void> {
    for (const { fingerprint, text } of texts)
      rememberBounded(this.texts, fingerprint, { text, keptAt: now }, this.capacity);
  }

  async text(fingerprint: string): Promise<string | undefined> {
    return this.texts.get(fingerprint)?.text;
  }

  async forget(fingerprints: readonly string[]): Promise<void> {
    for (const fingerprint of fingerprints) this.texts.delete(fingerprint);
  }

  async prune(before: Date): Promise<number> {
    let pruned = 0;
    for (const [fingerprint, { keptAt }] of this.texts)
      if (keptAt < before) {
        this.texts.delete(fingerprint);
        pruned++;
      }
    return pruned;
  }
}
