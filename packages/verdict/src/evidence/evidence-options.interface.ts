import type { EvidenceLevel } from './evidence-level.js';
import type { EvidenceQuery } from './evidence-query.interface.js';
import type { EvidenceRecorder } from './evidence-recorder.interface.js';

/** What evidence reads of the module options. */
export interface EvidenceOptions {
  /** Where decision evidence goes. Default: `NullEvidenceRecorder` (records nothing, warns once). */
  readonly evidence?: EvidenceRecorder;
  /**
   * How much of each run's evidence is written: `standard` (one record per stage) or `minimal` (at most two records
   * per run, the latest before its first mutating step and its final decision, each with every fact the run
   * established). Default: `standard`.
   */
  readonly evidenceLevel?: EvidenceLevel;
  /**
   * Reads evidence back (`EvidenceQuery`, `verdict evidence list|show`). Default: an `InMemoryEvidenceQuery`
   * when `evidence` is an `InMemoryEvidenceRecorder`; otherwise none, and using it is a `VerdictConfigurationError`
   * (with TypeORM evidence pass `new TypeOrmEvidenceQuery(dataSource)`).
   */
  readonly evidenceQuery?: EvidenceQuery;
}
