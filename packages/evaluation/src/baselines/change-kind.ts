/**
 * How a case differs between a baseline report and the current run. Cases are matched by id; a case
 * whose purpose, version, input fingerprints or assertion ids changed is a different case (see
 * {@link changeKindOf}). A case "runs" when its status is `passed`, `failed` or `error`; a pending or absent
 * case does not.
 */
export const ChangeKind = {
  /**
   * Blocking. Passed in the baseline, fails now — or failed in both, with an assertion that passed in the
   * baseline failing now: the behaviour the case protects got worse.
   */
  BehaviouralRegression: 'behavioural_regression',
  /**
   * Blocking. Fails now and was not measured before: the case is new, was pending, or hit a harness error
   * in the baseline. A new failing case is reported only as this kind (it also adds coverage).
   */
  BehaviouralFailure: 'behavioural_failure',
  /** Blocking. Hit a harness error now, whatever the baseline said: a baseline cannot accept a broken harness. */
  HarnessError: 'harness_error',
  /**
   * Blocking. Ran in the baseline (passed, failed or error) and does not run now: removed, renamed, made pending,
   * re-purposed, re-versioned, or given other assertions or another input (a changed claim).
   */
  RemovedCoverage: 'removed_coverage',
  /** Not blocking. Failed in the baseline, passes now. */
  Improvement: 'improvement',
  /** Not blocking. Hit a harness error in the baseline, passes now. */
  Recovered: 'recovered',
  /** Not blocking. Passes now and was not measured before: new, previously pending, or a changed claim. */
  AddedCoverage: 'added_coverage',
} as const;

export type ChangeKind = (typeof ChangeKind)[keyof typeof ChangeKind];

const BLOCKING: ReadonlySet<ChangeKind> = new Set([
  ChangeKind.BehaviouralRegression,
  ChangeKind.BehaviouralFailure,
  ChangeKind.HarnessError,
  ChangeKind.RemovedCoverage,
]);

/** Whether a change of this kind must stop a merge. */
export function isBlocking(kind: ChangeKind): boolean {
  return BLOCKING.has(kind);
}
