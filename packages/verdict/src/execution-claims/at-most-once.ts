import type { JsonValue } from '../fingerprints/json-value.js';
import type { Envelope } from '../pipeline/envelope.js';

/**
 * Strict at-most-once admission of one logical operation to the executor (docs/execution-claims-and-rate-limits.md). The key is the
 * operation's identity, built from trusted data: tenant, actor, resource id and version, and every
 * argument that distinguishes one operation from another. Never the tool-call id.
 */
export interface AtMostOncePolicy<TArgs = any, TTarget = any> {
  readonly name: string;
  readonly key: (envelope: Envelope<TArgs>, target: TTarget) => JsonValue;
}

/**
 * @example
 * atMostOnce: atMostOnce({
 *   name: 'escalate-order',
 *   key: ({ context }, order: Order) => ({ tenant: order.tenantId, order: order.id, version: order.version }),
 * })
 */
export function atMostOnce<TArgs, TTarget>(policy: AtMostOncePolicy<TArgs, TTarget>): AtMostOncePolicy<TArgs, TTarget> {
  return Object.freeze({ ...policy });
}
