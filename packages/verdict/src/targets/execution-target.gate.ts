import type { CapabilityDefinition } from '../capabilities/capability-definition.js';
import type { GateRequest } from '../capabilities/gate-request.js';
import type { ActionContext } from '../context/action-context.js';
import { Decision } from '../decisions/decision.js';
import { SecuritySignal } from '../decisions/security-signal.js';
import { Stage } from '../decisions/stage.js';
import type { EvidenceTrail } from '../evidence/evidence-trail.js';
import { fingerprint } from '../fingerprints/fingerprint.js';
import { isThenable } from '../shared/is-thenable.js';
import { TargetStrategy } from './execution-target-policy.js';
import { type TargetOutcome, targetOf } from './target-outcome.js';

/**
 * Steps 6–8. 6: fingerprint the proposal target's stable identity before any refresh, so an in-place mutation
 * of the proposal object is caught too. 7: refresh the target from trusted inputs (the resolved proposal target
 * and the context, never the model's arguments), or reuse the snapshot where the capability chose
 * `acceptStaleSnapshot` explicitly; `TargetNotResolvable`, or a refresh that answers no object (`null`,
 * `undefined`: the resource is gone) → `deny` at `target_refresh`. 8: fingerprint the execution target; any
 * identity difference is resource substitution → `deny` at `target_refresh`. Records its decisions; answers the
 * execution target, or the decision that stops the run.
 */
export function refreshExecutionTarget({
  definition,
  envelope,
  target: proposalTarget,
  trail,
}: Pick<GateRequest, 'definition' | 'envelope' | 'target' | 'trail'>): TargetOutcome | Promise<TargetOutcome> {
  const { context } = envelope;
  const policy = definition.executionTarget;
  const proposalIdentity = identityOf(definition, proposalTarget, context);
  trail.establish({
    targetPolicy: policy.name,
    targetStrategy: policy.strategy,
    proposalIdentityFingerprint: proposalIdentity,
  });
  // Invariant: from here on, nothing is derived from `proposalTarget`.
  const refreshed =
    policy.strategy === TargetStrategy.Refresh
      ? targetOf(
          () => policy.refresh!(proposalTarget, context, definition.host),
          trail,
          (error) => Decision.deny(Stage.TargetRefresh, `refresh: ${error.message}`),
        )
      : { target: proposalTarget };
  const compared = (outcome: TargetOutcome): TargetOutcome => {
    if (outcome instanceof Decision) return outcome;
    const gone = noTarget(outcome.target);
    if (gone === null) return sameIdentity(definition, proposalIdentity, outcome.target, context, trail);
    trail.record(gone);
    return gone;
  };
  return isThenable(refreshed) ? refreshed.then(compared) : compared(refreshed);
}

/**
 * Step 7: a refresh that answers no object (`null` or `undefined`: a `findOne` that found nothing, the resource
 * deleted since the proposal; or any other value that is not an object) refreshed no target, as step 3 treats a
 * resolver's: a `deny` at `target_refresh`, decided before the identity function (which reads an object) sees it.
 * Answers `null` when there is a target.
 */
function noTarget(target: unknown): Decision | null {
  if (target === null || target === undefined) return Decision.deny(Stage.TargetRefresh, 'refresh: the target is gone');
  if (typeof target !== 'object') return Decision.deny(Stage.TargetRefresh, 'refresh: target is not an object');
  return null;
}

/** Step 8: the execution target must have the proposal target's identity. */
function sameIdentity(
  definition: CapabilityDefinition,
  proposalIdentity: string,
  executionTarget: unknown,
  context: ActionContext,
  trail: EvidenceTrail,
): TargetOutcome {
  const executionIdentity = identityOf(definition, executionTarget, context);
  const identityMatch = executionIdentity === proposalIdentity;
  trail.establish({ executionIdentityFingerprint: executionIdentity, identityMatch });
  const decision = identityMatch
    ? Decision.permit(Stage.TargetRefresh)
    : Decision.deny(
        Stage.TargetRefresh,
        'resource substitution: execution target identity differs from the proposal target',
        SecuritySignal.ResourceSubstitutionDetected,
      );
  trail.record(decision);
  return decision.permitted ? { target: executionTarget } : decision;
}

/** `sha256(JCS({capability, target_policy, identity}))`. */
function identityOf(definition: CapabilityDefinition, target: unknown, context: ActionContext): string {
  const policy = definition.executionTarget;
  return fingerprint({
    capability: definition.name,
    target_policy: policy.name,
    identity: policy.identity(target, context),
  });
}
