import { VerdictError } from '@verdict/nestjs';

/**
 * An observation that does not describe a possible run: an unknown disposition, a tool call that executed
 * although Verdict did not permit it, `executed: false` beside a tool call that executed, an empty
 * side-effect name, or a runner that returned something else than an {@link Observation}. Inside a run it becomes a harness error.
 */
export class InvalidObservationError extends VerdictError {
  readonly code = 'VERDICT_EVALUATION_OBSERVATION_INVALID';

  constructor(readonly problem: string) {
    super(`Invalid observation: ${problem}.`);
  }
}
