import { VerdictError } from '@verdict/nestjs';

/** A baseline that cannot be compared with this run: it records another suite. */
export class EvaluationBaselineError extends VerdictError {
  readonly code = 'VERDICT_EVALUATION_BASELINE_MISMATCH';

  constructor(
    readonly baselineSuite: string,
    readonly currentSuite: string,
  ) {
    super(
      `The baseline records suite "${baselineSuite}", not "${currentSuite}": compare each suite with its own baseline file.`,
      {
        baselineSuite,
        currentSuite,
      },
    );
  }
}
