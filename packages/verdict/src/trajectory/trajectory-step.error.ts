import { VerdictError } from '../errors/verdict.error.js';

/**
 * `StateMachine.step` received an effect or a state it cannot fold: an effect without a verb, a non-string
 * resource or destination, a non-numeric value in a field a transition adds to, or an addition that overflows.
 * Pass effects as normalized strings and states produced by the same machine.
 */
export class TrajectoryStepError extends VerdictError {
  readonly code = 'VERDICT_TRAJECTORY_STEP';
}
