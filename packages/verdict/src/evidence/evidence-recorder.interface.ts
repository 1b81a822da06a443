import type { DecisionRecord } from './decision-record.js';

/**
 * Where evidence goes. Adapters: `NullEvidenceRecorder` (default; warns once), `InMemoryEvidenceRecorder`
 * (tests, bounded), `TypeOrmEvidenceRecorder` (`@verdict/nestjs/typeorm`).
 * A write that rejects before any mutating gate stops the action.
 */
export interface EvidenceRecorder {
  recordDecision(record: DecisionRecord): Promise<void>;
}

/** Injection token of the configured {@link EvidenceRecorder}. */
export const EvidenceRecorder = Symbol('EvidenceRecorder');
