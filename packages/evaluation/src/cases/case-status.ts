/**
 * The outcome of one case in one run.
 * - `passed`: the runner returned an observation and every assertion passed.
 * - `failed`: the runner returned an observation and at least one assertion failed (a behavioural failure).
 * - `error`: the runner or an assertion threw (a harness error): neither a pass nor a failure.
 * - `pending`: the case is declared but not runnable yet; it is never run.
 */
export const CaseStatus = {
  Passed: 'passed',
  Failed: 'failed',
  Error: 'error',
  Pending: 'pending',
} as const;

export type CaseStatus = (typeof CaseStatus)[keyof typeof CaseStatus];
