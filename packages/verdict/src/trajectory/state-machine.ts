import type { Effect } from './effect.js';
import type { TrajectoryState } from './trajectory-state.js';

/** The outcome of folding one effect: the next state and the transition rules that applied. */
export interface TrajectoryStep {
  /** The state after the effect; the very input state when no rule applied, a new frozen object otherwise. */
  readonly state: TrajectoryState;
  /** Indexes (declaration order) of the transition rules that matched the effect and whose guards held. */
  readonly matched: readonly number[];
}

/**
 * A compiled, immutable state model. The same machine serves the recorded-trace assertion and a run-time gate: fold a
 * proposed call's effect into a copy of the current state with `step`, and deny when `firstViolation` is not `null`.
 *
 * @example
 * const machine = compileStateModel(model);
 * const { state } = machine.step(machine.initial, { effect: 'read', resource: 'crm/customers/42' });
 * machine.firstViolation(state); // null, or the id of the first forbidden predicate that holds
 */
export interface StateMachine {
  /** The declared initial state (frozen). */
  readonly initial: TrajectoryState;
  /**
   * Folds one effect. Pure: never mutates `state`. Every rule whose `when` matches applies in declaration order; each
   * rule's `requires` guard reads the state *before* this effect; a rule writes its `set` fields, then its `add` fields.
   * Costs O(#transitions + #fields). @throws TrajectoryStepError for a malformed effect or a state this machine cannot have produced.
   */
  step(state: TrajectoryState, effect: Effect): TrajectoryStep;
  /** The id of the first forbidden predicate (declaration order) that holds in `state`, or `null`. */
  firstViolation(state: TrajectoryState): string | null;
  /** The forbidden predicate ids, in declaration order. */
  readonly forbiddenIds: readonly string[];
  /** Whether some transition's `when` matches the effect, guards aside: `false` means the effect is outside the model's coverage. */
  covers(effect: Effect): boolean;
  /** The state fields a forbidden predicate reads (first-mention order); empty for an unknown id. */
  fieldsOf(predicateId: string): readonly string[];
}
