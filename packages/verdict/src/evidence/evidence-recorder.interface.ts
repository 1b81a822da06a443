import type { DecisionRecord } from './decision-record.js';
import type { ReleaseRecord } from './release-record.js';

/**
 * Where evidence goes. Adapters: `NullEvidenceRecorder` (default; warns once), `InMemoryEvidenceRecorder`
 * (tests, bounded), `TypeOrmEvidenceRecorder` (`@verdict/nestjs/typeorm`).
 * A write that rejects before any mutating gate stops the action; a release record that cannot be written
 * stops the release (nothing is released).
 */
export interface EvidenceRecorder {
  recordDecision(record: DecisionRecord): Promise<void>;
  /**
   * Optional: several decision records of one proposal in one write, in order, all or none (the TypeORM
   * adapter sends one multi-row INSERT). A recorder without it gets `recordDecision` once per record, in
   * order (ADR 0022).
   */
  recordDecisions?(records: readonly DecisionRecord[]): Promise<void>;
  /** One context release (docs/context-release.md): route, labels, disposition and fingerprints, never payload values. */
  recordRelease(record: ReleaseRecord): Promise<void>;
}

/** Injection token of the configured {@link EvidenceRecorder}. */
export const EvidenceRecorder = Symbol('EvidenceRecorder');
