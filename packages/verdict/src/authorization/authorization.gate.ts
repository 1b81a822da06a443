import type { AnyAbility } from '@casl/ability';
import type { GateRequest } from '../capabilities/gate-request.js';
import type { Decision } from '../decisions/decision.js';
import { isAlwaysEnforced } from '../decisions/always-enforced.js';
import { SecuritySignal } from '../decisions/security-signal.js';
import type { Stage } from '../decisions/stage.js';
import type { SecurityEventOptions } from '../events/security-event-options.interface.js';
import { isThenable } from '../shared/is-thenable.js';
import type { AuthorizationOptions } from './authorization-options.interface.js';
import { authorizeTarget } from './casl-authorizer.js';

/** What steps 3 and 9 read of the module options: the ability factory, and `tenantOf` for the cross-tenant signal. */
export type AuthorizationGateOptions = AuthorizationOptions & Pick<SecurityEventOptions, 'tenantOf'>;

/** What one authorization asks: may the envelope's actor do the capability's action on the target? */
export type AuthorizationRequest = Pick<GateRequest, 'definition' | 'envelope' | 'target'>;

/**
 * Steps 3 and 9: authorize the target (the proposal target at 3, the execution target at 9) with an ability the
 * application's `AbilityFactory` builds afresh for the envelope's context, so an authority change between
 * proposal and execution denies. CASL decides; a denied target the module's `tenantOf` places in another tenant
 * also carries `CrossTenantResourceRequested`. `tenantOf` is asked only about a target CASL refused: never about a
 * permitted one, nor at an integrity deny (no object, another subject type), where there is no such target; a
 * `tenantOf` that throws is the application's fault and propagates. Records nothing: the pipeline records the
 * decision where its step says. A factory that answers synchronously is answered without a promise (ADR 0053).
 */
export function authorizeAt(
  options: AuthorizationGateOptions,
  request: AuthorizationRequest,
  stage: Stage,
): Decision | Promise<Decision> {
  const built = options.abilityFactory.createForContext(request.envelope.context);
  return isThenable(built)
    ? authorizeLater(built, options, request, stage)
    : authorizeWith(built, options, request, stage);
}

async function authorizeLater(
  built: PromiseLike<AnyAbility>,
  options: AuthorizationGateOptions,
  request: AuthorizationRequest,
  stage: Stage,
): Promise<Decision> {
  return authorizeWith(await built, options, request, stage);
}

function authorizeWith(
  ability: AnyAbility,
  { tenantOf }: AuthorizationGateOptions,
  { definition, envelope, target }: AuthorizationRequest,
  stage: Stage,
): Decision {
  const decision = authorizeTarget(ability, definition, target, envelope.arguments, stage);
  if (decision.permitted || tenantOf === undefined || isAlwaysEnforced(decision)) return decision;
  const owner = tenantOf(target, definition.name);
  const foreign = owner !== undefined && owner !== null && owner !== envelope.context.tenant;
  return foreign ? decision.signalling(SecuritySignal.CrossTenantResourceRequested) : decision;
}
