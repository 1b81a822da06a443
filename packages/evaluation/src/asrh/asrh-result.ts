/** Outcome of one assertion or one case, as the harness names them. */
export const AsrhResult = { Pass: 'pass', Fail: 'fail', Error: 'error', NotRun: 'not_run' } as const;
export type AsrhResult = (typeof AsrhResult)[keyof typeof AsrhResult];

/** Why an assertion came out as it did: a sentence, a structured object, or `null` when there is nothing to say. */
export type AsrhEvidence = string | { readonly [key: string]: unknown } | null;

/** What an assertion evaluator returns before the runner gives it an id. */
export interface AsrhAssertionOutcome {
  readonly result: AsrhResult;
  readonly evidence: AsrhEvidence;
}

/**
 * One evaluated assertion. `id` is the assertion's `type`, or `type#index` (its position in the scenario's
 * `assertions` list) when the scenario lists that type more than once.
 */
export interface AsrhAssertionResult extends AsrhAssertionOutcome {
  readonly id: string;
}

/** One scenario evaluated against one trace; `scenario` and `trace` are paths relative to the argument that named them. */
export interface AsrhRun {
  readonly scenario: string;
  readonly trace: string;
  readonly result: AsrhResult;
  readonly assertions: readonly AsrhAssertionResult[];
}

/**
 * The case result: `fail` if any assertion fails, else `error` if any errors, else `pass` if all pass, else `not_run`
 * (also for an empty list).
 * @example aggregateAsrhResults(['pass', 'not_run']) // 'not_run'
 */
export function aggregateAsrhResults(results: readonly AsrhResult[]): AsrhResult {
  if (results.includes(AsrhResult.Fail)) return AsrhResult.Fail;
  if (results.includes(AsrhResult.Error)) return AsrhResult.Error;
  if (results.length > 0 && results.every((result) => result === AsrhResult.Pass)) return AsrhResult.Pass;
  return AsrhResult.NotRun;
}
