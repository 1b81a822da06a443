import { VerdictError } from './verdict.error.js';

/** A trajectory's state kept changing under concurrent calls past the retry budget; nothing was admitted. */
export class TrajectoryContentionError extends VerdictError {
  readonly code = 'VERDICT_TRAJECTORY_CONTENTION';

  constructor(attempts: number) {
    super(
      `The trajectory state changed concurrently ${attempts} times in a row; the call was not admitted. Retry it.`,
      { attempts },
    );
  }
}
