import { VerdictError } from '@verdict/nestjs';

const SHOWN = 5;

/** A report (or baseline) that is not valid `verdict.evaluation-report.v1` JSON. `problems` lists every finding. */
export class EvaluationReportError extends VerdictError {
  readonly code = 'VERDICT_EVALUATION_REPORT_INVALID';

  constructor(readonly problems: readonly string[]) {
    const more = problems.length > SHOWN ? ` (and ${problems.length - SHOWN} more)` : '';
    super(
      `Not a valid verdict.evaluation-report.v1 report: ${problems.slice(0, SHOWN).join('; ')}${more}. Regenerate it from a suite run instead of editing it by hand.`,
      { problems: problems.length },
    );
  }
}
