import type { ActionContext, AnyActionContext } from '../context/action-context.js';
import type { JsonValue } from '../fingerprints/json-value.js';
import type { Envelope } from '../vocabulary/envelope.js';

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
 * @example
 * atMostOnce: atMostOnce({
 *   name: 'escalate-order',
 *   key: ({ context }, order: Order) => ({ tenant: order.tenantId, order: order.id, version: order.version }),
 * })
 */
export function atMostOnce<TArgs, TTarget, TContext extends AnyActionContext = ActionContext>(
  policy: AtMostOncePolicy<TArgs, TTarget, TContext>,
): AtMostOncePolicy<TArgs, TTarget, TContext> {
  return Object.freeze({ ...policy });
}
