import { Decision } from '../decisions/decision.js';
import { SecuritySignal } from '../decisions/security-signal.js';
import { Stage } from '../decisions/stage.js';
import { MissingTrajectoryError } from '../errors/missing-trajectory.error.js';
import { fingerprint } from '../fingerprints/fingerprint.js';
import type { GateRequest } from '../capabilities/gate-request.js';
import type { ActionContextOptions } from '../context/action-context-options.interface.js';
import { moduleActorKey } from '../context/actor-key.js';
import type { Effect } from '../trajectory/index.js';
import { foldEffects } from './fold-effects.js';
import { isMissingKey } from '../shared/is-missing-key.js';
import type { TrajectoryOptions } from './trajectory-options.interface.js';

const NOTHING_MODELLED = Decision.permit(Stage.Execution, 'trajectory: no modelled effect');

/**
 * Step 10a: fold the call's effects (`forbidStates`) onto its trajectory's state (the policy's scope keys it; an actor
 * scope without a key of its own uses the module's `actorKey`) and deny, before anything is spent,
 * if a forbidden predicate would become true; the predicate id goes to the internal reason. Admitted
 * effects are stored at once, so an effect a later gate refuses still counts: the trajectory can only
 * become stricter (ADR 0009).
 */
export async function admitTrajectory(
  options: TrajectoryOptions & Pick<ActionContextOptions, 'actorKey'>,
  { definition, envelope, target, clock, trail }: GateRequest,
): Promise<Decision> {
  const { trajectories } = options;
  const now = clock();
  const policy = definition.forbidStates!;
  const produced = policy.effectOf(envelope, target);
  const effects: readonly Effect[] = produced === null ? [] : Array.isArray(produced) ? produced : [produced as Effect];
  if (effects.length === 0) return NOTHING_MODELLED;
  const { scope } = policy;
  const key = scope.keyOf(envelope.context, target, moduleActorKey(options));
  // A blank key names nobody: it would be one state shared by everyone without a key (ADR 0012).
  if (isMissingKey(key)) throw new MissingTrajectoryError(envelope.capability, scope.id);
  const trajectoryFingerprint = fingerprint({ model: policy.modelFingerprint, scope: scope.id, trajectory: key });
  const { machine } = policy;
  await trail.beforeMutation();
  const outcome = await trajectories!.advance({
    trajectoryFingerprint,
    initial: machine.initial,
    advance: foldEffects(machine, effects),
    now,
  });
  if (outcome.admitted) trail.markMutated();
  const decision = outcome.admitted
    ? Decision.permit(Stage.Execution, 'trajectory: no forbidden state')
    : Decision.deny(Stage.Execution, `forbidden state: ${outcome.violation}`, SecuritySignal.ForbiddenStateRefused);
  trail.record(decision);
  return decision;
}
