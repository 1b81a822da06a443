import type { ActionContext, AnyActionContext } from '../context/action-context.js';
import type { JsonValue } from '../fingerprints/json-value.js';
import type { Envelope } from '../vocabulary/envelope.js';
import { type InferredFromCapability, inferredFromCapability } from '../capabilities/inferred-from-capability.js';

/**
 * Strict at-most-once admission of one logical operation to the executor (docs/execution-claims-and-rate-limits.md). The key is the
 * operation's identity, built from trusted data: tenant, actor, resource id and version, and every
 * argument that distinguishes one operation from another. Never the tool-call id.
 */
export interface AtMostOncePolicy<TArgs = any, TTarget = any, TContext extends AnyActionContext = any> {
  readonly name: string;
  readonly key: (envelope: Envelope<TArgs, TContext>, target: TTarget) => JsonValue;
}

/**
 * The longest `atMostOnce` policy name: each claim stores it in a `varchar(255)` column (longer ones are refused at
 * boot, on every store alike: PostgreSQL and MariaDB would refuse the claim at call time, after the earlier gates spent).
 */
export const MAX_CLAIM_POLICY_NAME = 255;

/**
 * What Verdict's own claim policies are named with (a review item's `verdict.deferred`): an application's `atMostOnce`
 * named so is refused at boot, so that no call of the application's can take or complete one of Verdict's claims.
 */
export const RESERVED_CLAIM_POLICY_PREFIX = 'verdict.';

/** What {@link atMostOnce} returns: inline in a capability, its types are the capability's. */
export interface TypedAtMostOncePolicy<TArgs, TTarget, TContext extends AnyActionContext>
  extends AtMostOncePolicy<TArgs, TTarget, TContext>, InferredFromCapability {}

/**
 * Inline in `@Capability({...})` or `defineCapability({...})`, the envelope and target are the capability's types.
 *
 * @example
 * atMostOnce: atMostOnce({
 *   name: 'escalate-order',
 *   key: ({ context }, order) => ({ tenant: order.tenantId, order: order.id, version: order.version }),
 * })
 */
export function atMostOnce<TArgs, TTarget, TContext extends AnyActionContext = ActionContext>(
  policy: AtMostOncePolicy<TArgs, TTarget, TContext>,
): TypedAtMostOncePolicy<TArgs, TTarget, TContext> {
  return inferredFromCapability(Object.freeze({ ...policy }));
}
