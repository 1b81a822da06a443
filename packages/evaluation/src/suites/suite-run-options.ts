import type { CasePurpose } from '../cases/case-purpose.js';
import type { CaseStatus } from '../cases/case-status.js';

/** Reported after every finished case, pending ones included: enough to draw a progress bar. */
export interface CaseProgress {
  /** Cases finished so far, this one included (1-based). */
  readonly completed: number;
  readonly total: number;
  readonly caseId: string;
  readonly purpose: CasePurpose;
  readonly status: CaseStatus;
}

/** Options of {@link SecuritySuite.run}. */
export interface SuiteRunOptions {
  /** The report's `generatedAt`, read once when the run ends. Default: `() => new Date()`. */
  readonly clock?: () => Date;
  /** Called synchronously after each case; an exception here aborts the run (it is not a case outcome). */
  readonly onCaseFinished?: (progress: CaseProgress) => void;
}
