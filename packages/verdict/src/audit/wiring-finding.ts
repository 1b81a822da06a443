import type { FindingCode } from './finding-code.js';
import type { Severity } from './severity.js';

/** One wiring problem the audit found. */
export interface WiringFinding {
  readonly code: FindingCode;
  readonly severity: Severity;
  /** What it is about: a capability, a store option, a release route, an agent's tool, a DataSource. */
  readonly subject: string;
  /** What is wrong and what to do. */
  readonly message: string;
}
