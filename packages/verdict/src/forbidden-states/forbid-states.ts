import { MissingTrajectoryError } from '../errors/missing-trajectory.error.js';
import { fingerprint } from '../fingerprints/fingerprint.js';
import type { JsonValue } from '../fingerprints/json-value.js';
import type { Envelope } from '../pipeline/envelope.js';
import { compileStateModel } from '../trajectory/index.js';
import type { Effect, StateMachine } from '../trajectory/index.js';

/** What one authorized call would do to the world, as the state model's effects; `null` when nothing it models. */
export type EffectOf<TArgs = any, TTarget = any> = (envelope: Envelope<TArgs>, target: TTarget) => Effect | readonly Effect[] | null;

/** Which trajectory (conversation) a call belongs to, from trusted data only. */
export type TrajectoryOf<TArgs = any> = (envelope: Envelope<TArgs>) => JsonValue;

/** The run-time gate of a capability: its effects must not bring the conversation to a forbidden state. */
export interface ForbiddenStatesPolicy<TArgs = any, TTarget = any> {
  readonly machine: StateMachine;
  /** `sha256(JCS(stateModel))`: trajectories of different models never share state. */
  readonly modelFingerprint: string;
  readonly effectOf: EffectOf<TArgs, TTarget>;
  readonly trajectory: TrajectoryOf<TArgs>;
}

/**
 * The default trajectory: the tenant and `context.metadata.conversationId`, which the application sets
 * in its `resolveContext` (server-side, never from the model). A call without one is a wiring fault.
 */
export const conversationTrajectory: TrajectoryOf = ({ capability, context }) => {
  const conversation = context.metadata?.conversationId;
  if (typeof conversation !== 'string' || conversation === '') throw new MissingTrajectoryError(capability);
  return { tenant: context.tenant, conversation };
};

/**
 * Denies a call whose effect would make a forbidden predicate of `stateModel` true for the conversation
 * (DESIGN.md §11), before it executes. Every capability that contributes effects to the model declares it,
 * each with its own `effectOf`; they share the conversation's folded state through the `trajectories` store.
 * The model is validated here, when the capability is declared (`StateModelError`).
 *
 * @example
 * const exfiltration = { initial: { customer_data_read: false, uploaded_externally: 0 }, transitions: [...], forbidden: [...] };
 * \@Capability({ name: 'files.upload', ..., forbidStates: forbidStates(exfiltration, ({ arguments: a }) => ({ effect: 'upload', destination: a.host })) })
 */
export function forbidStates<TArgs, TTarget>(
  stateModel: unknown,
  effectOf: EffectOf<TArgs, TTarget>,
  options: { trajectory?: TrajectoryOf<TArgs> } = {},
): ForbiddenStatesPolicy<TArgs, TTarget> {
  const machine = compileStateModel(stateModel);
  return Object.freeze({ machine, modelFingerprint: fingerprint(stateModel), effectOf, trajectory: options.trajectory ?? conversationTrajectory });
}
