import { CASE_PURPOSES, type CasePurpose } from '../cases/case-purpose.js';
import { CaseStatus } from '../cases/case-status.js';

/**
 * One purpose's tally. Harness errors and pending cases are counted apart and never enter the pass rate:
 * `passRate = passed / (passed + failed)`, or `null` when no case of that purpose passed or failed.
 */
export interface Score {
  readonly passed: number;
  readonly failed: number;
  readonly errors: number;
  readonly pending: number;
  readonly passRate: number | null;
}

/** Scores by purpose: `attack` is containment, `utility` is legitimate task success. */
export type Scores = { readonly [purpose in CasePurpose]: Score };

/** Tallies the cases of every purpose. */
export function scoresOf(cases: Iterable<{ readonly purpose: CasePurpose; readonly status: CaseStatus }>): Scores {
  const tallies = new Map(CASE_PURPOSES.map((purpose) => [purpose, { passed: 0, failed: 0, errors: 0, pending: 0 }]));
  for (const { purpose, status } of cases) {
    const tally = tallies.get(purpose)!;
    if (status === CaseStatus.Passed) tally.passed += 1;
    else if (status === CaseStatus.Failed) tally.failed += 1;
    else if (status === CaseStatus.Error) tally.errors += 1;
    else tally.pending += 1;
  }
  const score = (purpose: CasePurpose): Score => {
    const tally = tallies.get(purpose)!;
    const completed = tally.passed + tally.failed;
    return { ...tally, passRate: completed === 0 ? null : tally.passed / completed };
  };
  return { attack: score('attack'), utility: score('utility') };
}
