import { VerdictError } from '@verdict/nestjs';

/** A suite that cannot run as declared: a bad name, version or reproduction, no cases, or a misbehaving clock. */
export class SecuritySuiteError extends VerdictError {
  readonly code: string = 'VERDICT_EVALUATION_SUITE_INVALID';

  constructor(
    readonly problem: string,
    /** The suite name, when it is known to be valid. */
    readonly suite?: string,
  ) {
    super(suite === undefined ? `Security suite: ${problem}.` : `Security suite "${suite}": ${problem}.`, { suite });
  }
}

/** Two cases of one suite share an id: ids identify cases across runs and baselines, so they must be unique. */
export class DuplicateCaseIdError extends SecuritySuiteError {
  override readonly code = 'VERDICT_EVALUATION_DUPLICATE_CASE_ID';

  constructor(
    readonly caseId: string,
    suite: string,
  ) {
    super(`the case id "${caseId}" appears more than once; give each case its own id`, suite);
  }
}
