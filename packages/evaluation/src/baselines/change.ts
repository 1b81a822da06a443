import type { CasePurpose } from '../cases/case-purpose.js';
import type { CaseStatus } from '../cases/case-status.js';
import type { ChangeKind } from './change-kind.js';

/** One side of a change: the case as a report recorded it. */
export interface CaseSnapshot {
  readonly version: string;
  readonly purpose: CasePurpose;
  readonly status: CaseStatus;
}

/**
 * One difference between a baseline and the current run. `baseline` is `null` when the case is absent
 * there (or is compared as a new case because its claim changed: purpose, version, input or assertions);
 * `current` likewise.
 */
export interface Change {
  readonly kind: ChangeKind;
  readonly blocking: boolean;
  readonly caseId: string;
  /** The purpose of the side this change describes: the current one, or the baseline's for removed coverage. */
  readonly purpose: CasePurpose;
  readonly baseline: CaseSnapshot | null;
  readonly current: CaseSnapshot | null;
}
