import { VerdictError } from '@verdict/nestjs';

/** An assertion that cannot be built as asked: a malformed id or capability name, an empty needle, a negative count. */
export class AssertionDefinitionError extends VerdictError {
  readonly code = 'VERDICT_EVALUATION_ASSERTION_INVALID';

  constructor(readonly problem: string) {
    super(`Assertion: ${problem}.`);
  }
}
