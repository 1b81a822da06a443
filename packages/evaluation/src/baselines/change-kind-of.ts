import { CaseStatus } from '../cases/case-status.js';
import { ChangeKind } from './change-kind.js';

/**
 * The change between a case's baseline status and its current status (`null` = absent). Every pair maps to
 * exactly one kind or to `null` (no change):
 *
 * | baseline \ current | absent  | pending | passed      | failed      | error         |
 * |--------------------|---------|---------|-------------|-------------|---------------|
 * | absent             | —       | —       | added       | b. failure  | harness error |
 * | pending            | —       | —       | added       | b. failure  | harness error |
 * | passed             | removed | removed | —           | regression  | harness error |
 * | failed             | removed | removed | improvement | —           | harness error |
 * | error              | removed | removed | recovered   | b. failure  | harness error |
 *
 * A failure already in the baseline is accepted (no change); a harness error never is.
 */
export function changeKindOf(baseline: CaseStatus | null, current: CaseStatus | null): ChangeKind | null {
  if (current === CaseStatus.Error) return ChangeKind.HarnessError;
  if (current === null || current === CaseStatus.Pending) return runs(baseline) ? ChangeKind.RemovedCoverage : null;
  if (current === CaseStatus.Passed) {
    if (baseline === CaseStatus.Passed) return null;
    if (baseline === CaseStatus.Failed) return ChangeKind.Improvement;
    if (baseline === CaseStatus.Error) return ChangeKind.Recovered;
    return ChangeKind.AddedCoverage;
  }
  if (baseline === CaseStatus.Passed) return ChangeKind.BehaviouralRegression;
  if (baseline === CaseStatus.Failed) return null;
  return ChangeKind.BehaviouralFailure;
}

function runs(status: CaseStatus | null): boolean {
  return status === CaseStatus.Passed || status === CaseStatus.Failed || status === CaseStatus.Error;
}
