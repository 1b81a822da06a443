import { VerdictError } from '@verdict/nestjs';

/**
 * An evaluation case that cannot run as declared: a bad id or version, a malformed input, no runner, no
 * assertions, duplicate assertion ids. Thrown when the case is defined, never during a run.
 */
export class EvaluationCaseError extends VerdictError {
  readonly code = 'VERDICT_EVALUATION_CASE_INVALID';

  constructor(
    readonly problem: string,
    /** The offending case id, when it is a valid identifier. */
    readonly caseId?: string,
  ) {
    super(caseId === undefined ? `Evaluation case: ${problem}.` : `Evaluation case "${caseId}": ${problem}.`, {
      caseId,
    });
  }
}
