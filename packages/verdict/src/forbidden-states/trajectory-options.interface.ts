import type { TrajectoryStore } from './trajectory-store.interface.js';

/** What forbidden states read of the module options. */
export interface TrajectoryOptions {
  /**
   * Where conversations' folded trajectory states live. Required when any capability uses `forbidStates` (checked
   * at boot). A value given is checked at every boot: `null`, `{}` or a store missing a method is a
   * `VerdictConfigurationError`.
   */
  readonly trajectories?: TrajectoryStore;
}
