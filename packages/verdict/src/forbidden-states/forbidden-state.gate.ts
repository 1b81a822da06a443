import { Decision } from '../decisions/decision.js';
import { SecuritySignal } from '../decisions/security-signal.js';
import { Stage } from '../decisions/stage.js';
import { MissingTrajectoryError } from '../errors/missing-trajectory.error.js';
import { fingerprint } from '../fingerprints/fingerprint.js';
import type { Envelope } from '../vocabulary/envelope.js';
import type { EvidenceTrail } from '../evidence/evidence-trail.js';
import type { Effect } from '../trajectory/index.js';
import { foldEffects } from './fold-effects.js';
import type { ForbiddenStatesPolicy } from './forbid-states.js';
import type { TrajectoryStore } from './trajectory-store.interface.js';
import type { ActorKey } from '../context/actor-key.js';

const NOTHING_MODELLED = Decision.permit(Stage.Execution, 'trajectory: no modelled effect');

/**
 * Step 10a: fold the call's effects onto its trajectory's state (the policy's scope keys it) and deny, before anything is spent,
 * if a forbidden predicate would become true; the predicate id goes to the internal reason. Admitted
 * effects are stored at once, so an effect a later gate refuses still counts: the trajectory can only
 * become stricter (ADR 0009).
 */
export async function admitTrajectory(
  store: TrajectoryStore,
  policy: ForbiddenStatesPolicy,
  envelope: Envelope,
  target: unknown,
  now: Date,
  trail: EvidenceTrail,
  moduleActorKey?: ActorKey,
): Promise<Decision> {
  const produced = policy.effectOf(envelope, target);
  const effects: readonly Effect[] = produced === null ? [] : Array.isArray(produced) ? produced : [produced as Effect];
  if (effects.length === 0) return NOTHING_MODELLED;
  const { scope } = policy;
  const key = scope.keyOf(envelope.context, target, moduleActorKey);
  if (key === null || key === undefined) throw new MissingTrajectoryError(envelope.capability, scope.id);
  const trajectoryFingerprint = fingerprint({ model: policy.modelFingerprint, scope: scope.id, trajectory: key });
  const { machine } = policy;
  await trail.beforeMutation();
  const outcome = await store.advance({
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
