import type { TrajectoryState } from '../trajectory/index.js';

/** The candidate state after a call's effects, or the forbidden predicate they would make true. */
export type TrajectoryAdvance =
  { readonly state: TrajectoryState; readonly violation: null } | { readonly state: null; readonly violation: string };

/** One call's effects on one trajectory's folded state. */
export interface TrajectoryRequest {
  /** `sha256(JCS({model, trajectory}))`. */
  readonly trajectoryFingerprint: string;
  /** The state of a trajectory with no admitted effects yet. */
  readonly initial: TrajectoryState;
  /** Pure: folds the call's effects onto `state` (a copy; never mutated). */
  readonly advance: (state: TrajectoryState) => TrajectoryAdvance;
  readonly now: Date;
}

/** Admitted: the state was advanced and stored. Refused: nothing was written. */
export type TrajectoryOutcome =
  { readonly admitted: true; readonly position: number } | { readonly admitted: false; readonly violation: string };

/**
 * The folded state of each trajectory (docs/evaluation.md, run time): one row per trajectory, advanced
 * atomically — the candidate state is computed from the stored one and written only if no forbidden
 * predicate became true and no concurrent call advanced it first (then it is recomputed). O(1) per call:
 * the state is kept, never recomputed from history. Store failures propagate; they are never denials.
 */
export interface TrajectoryStore {
  advance(request: TrajectoryRequest): Promise<TrajectoryOutcome>;
}

/** The methods of a {@link TrajectoryStore} Verdict calls (its gate). */
export const TRAJECTORY_STORE_METHODS = ['advance'] as const satisfies readonly (keyof TrajectoryStore)[];

/** Injection token of the configured {@link TrajectoryStore}. */
export const TrajectoryStore = Symbol('TrajectoryStore');
