import type { ProvenanceRecord } from './provenance-record.js';

/**
 * Where provenance records go (docs/provenance.md): `InMemoryProvenanceLedger` (tests, bounded) and
 * `TypeOrmProvenanceLedger` (`@verdict/nestjs/typeorm`). A write that rejects stops the run that made it:
 * labels are written before the model sees the content, influences before anything executes.
 */
export interface ProvenanceLedger {
  /** Appends records (all or none for the TypeORM adapter). */
  append(records: readonly ProvenanceRecord[]): Promise<void>;
  /** The records about one content item: its labels, its derivation edges (as child) and its influences, oldest first. */
  forContent(contentFingerprint: string): Promise<readonly ProvenanceRecord[]>;
  /** The influence records of one proposal, oldest first. */
  forCorrelation(correlationId: string): Promise<readonly ProvenanceRecord[]>;
}

/** Injection token of the configured {@link ProvenanceLedger}. */
export const ProvenanceLedger = Symbol('ProvenanceLedger');
