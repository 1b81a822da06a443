import { VerdictError } from '@verdict/nestjs';

/**
 * An assertion returned something other than `{ passed: boolean, evidence?: JsonValue }` (a promise, a
 * truthy string, evidence that is not plain JSON). Inside a run it becomes a harness error.
 */
export class InvalidAssertionOutcomeError extends VerdictError {
  readonly code = 'VERDICT_EVALUATION_ASSERTION_OUTCOME_INVALID';

  constructor(
    readonly assertionId: string,
    readonly problem: string,
    options?: { cause?: unknown },
  ) {
    super(
      `Assertion "${assertionId}" returned an invalid outcome: ${problem}. Return { passed: boolean, evidence?: plain JSON } synchronously.`,
      { assertionId },
      options,
    );
  }
}
