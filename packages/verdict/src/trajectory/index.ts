export type { StateValue, TrajectoryState } from './trajectory-state.js';
export type { Effect } from './effect.js';
export type {
  StateModel,
  TransitionRule,
  EffectMatcher,
  Condition,
  ConditionOperator,
  PredicateGroup,
  PredicateNode,
  ForbiddenPredicate,
} from './state-model.js';
export type { StateMachine, TrajectoryStep } from './state-machine.js';
export { compileStateModel } from './compile-state-model.js';
export { StateModelError } from './state-model.error.js';
export { TrajectoryStepError } from './trajectory-step.error.js';
