import { compileStateModel } from '../trajectory/index.js';
import type { Effect, StateMachine } from '../trajectory/index.js';
import { fingerprint } from '../fingerprints/fingerprint.js';
import type { ActionContext, AnyActionContext } from '../context/action-context.js';
import type { Envelope } from '../vocabulary/envelope.js';
import type { TrajectoryScope } from './trajectory-scope.js';
import { type InferredFromCapability, inferredFromCapability } from '../capabilities/inferred-from-capability.js';

/**
 * What one authorized call would do to the world, as the state model's effects; `null` when nothing it models.
 * `target` is the execution target (re-read from trusted storage): derive facts from it — what an export row
 * holds, whose file it is — rather than from the model's arguments.
 */
export type EffectOf<TArgs = any, TTarget = any, TContext extends AnyActionContext = any> = (
  envelope: Envelope<TArgs, TContext>,
  target: TTarget,
) => Effect | readonly Effect[] | null;

/** Options of {@link forbidStates}. */
export interface ForbidStatesOptions<TTarget = any> {
  /** Which calls share one folded state. Required: there is no default (ADR 0012). */
  readonly scope: TrajectoryScope<NoInfer<TTarget>>;
}

/** The run-time gate of a capability: its effects must not bring its trajectory to a forbidden state. */
export interface ForbiddenStatesPolicy<TArgs = any, TTarget = any, TContext extends AnyActionContext = any> {
  readonly machine: StateMachine;
  /** `sha256(JCS(stateModel))`: trajectories of different models never share state. */
  readonly modelFingerprint: string;
  readonly effectOf: EffectOf<TArgs, TTarget, TContext>;
  /** Checked at boot: a policy without one stops the application starting. */
  readonly scope: TrajectoryScope<TTarget>;
}

/** What {@link forbidStates} returns: inline in a capability, its types are the capability's. */
export interface TypedForbiddenStatesPolicy<TArgs, TTarget, TContext extends AnyActionContext>
  extends ForbiddenStatesPolicy<TArgs, TTarget, TContext>, InferredFromCapability {}

/** The policies {@link forbidStates} built: a hand-made object could carry any model fingerprint. */
const built = new WeakSet<object>();

/** Whether `value` was built by {@link forbidStates}. */
export function isForbiddenStatesPolicy(value: unknown): value is ForbiddenStatesPolicy {
  return typeof value === 'object' && value !== null && built.has(value);
}

/**
 * Denies a call whose effect would make a forbidden predicate of `stateModel` true for its trajectory
 * (docs/evaluation.md), before it executes. Every capability that contributes effects to the model declares it,
 * each with its own `effectOf` and the same `scope`; they share the trajectory's folded state through the
 * `trajectories` store. The model is validated here, when the capability is declared (`StateModelError`);
 * a missing scope, or capabilities that share a model under different scopes, fail at boot
 * (`VerdictConfigurationError`).
 *
 * @example
 * \@Capability({
 *   name: 'files.upload', ...,
 *   forbidStates: forbidStates(exfiltration, ({ arguments: a }, archive) => ({ effect: 'upload', resource: archive.holds, destination: a.host }), {
 *     scope: TrajectoryScope.actor((user: User) => user.id),
 *   }),
 * })
 */
export function forbidStates<TArgs, TTarget, TContext extends AnyActionContext = ActionContext>(
  stateModel: unknown,
  effectOf: EffectOf<TArgs, TTarget, TContext>,
  options: ForbidStatesOptions<TTarget>,
): TypedForbiddenStatesPolicy<TArgs, TTarget, TContext> {
  const machine = compileStateModel(stateModel);
  const policy = Object.freeze({ machine, modelFingerprint: fingerprint(stateModel), effectOf, scope: options?.scope });
  built.add(policy);
  return inferredFromCapability(policy);
}
