import type { Effect, StateMachine, TrajectoryState } from '../trajectory/index.js';
import type { TrajectoryAdvance } from './trajectory-store.interface.js';

/**
 * The advance of one call: folds `effects` onto a state in order and stops at the first forbidden
 * predicate that becomes true. Pure; the state it is given is never mutated.
 */
export function foldEffects(
  machine: StateMachine,
  effects: readonly Effect[],
): (state: TrajectoryState) => TrajectoryAdvance {
  return (state) => {
    for (const effect of effects) {
      state = machine.step(state, effect).state;
      const violation = machine.firstViolation(state);
      if (violation !== null) return { state: null, violation };
    }
    return { state, violation: null };
  };
}
