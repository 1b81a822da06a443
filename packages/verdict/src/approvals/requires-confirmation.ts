import type { JsonObject } from '../fingerprints/json-value.js';
import type { Envelope } from '../pipeline/envelope.js';

/** Default time a human has to approve: 900 seconds. */
export const DEFAULT_CONFIRMATION_TTL_SECONDS = 900;

/**
 * Verified confirmation (DESIGN.md §7): a human approves one exact proposal — this actor, this resource
 * in this state, these arguments — once, before it expires. Verdict always adds the capability, the
 * execution-target policy and the complete arguments to the binding.
 */
export interface ConfirmationPolicy<TArgs = any, TTarget = any> {
  /**
   * The trusted state an approval is bound to: actor, tenant, resource id, resource version. Any change
   * of it after approval invalidates the approval.
   */
  readonly bind: (envelope: Envelope<TArgs>, target: TTarget) => JsonObject;
  /** Why confirmation is required, shown to the approver. */
  readonly reason: string;
  /** Default {@link DEFAULT_CONFIRMATION_TTL_SECONDS}. */
  readonly ttlSeconds?: number;
  /** What the approver is approving, built from the trusted target (never model-written prose or HTML). */
  readonly describe?: (envelope: Envelope<TArgs>, target: TTarget) => string;
  /**
   * The facts an approver's CASL ability is checked against at an `@ApprovalEndpoint()`, as the subject
   * `'Approval'` (with `capability` added): e.g. `{ tenantId, customerId, orderId }` of the target.
   * Default: `{ capability }` only.
   */
  readonly subject?: (envelope: Envelope<TArgs>, target: TTarget) => JsonObject;
}

/**
 * @example
 * requiresConfirmation: requiresConfirmation({
 *   bind: ({ context }, order: Order) => ({ actor: context.actor.customerId, tenant: order.tenantId, order: order.id, version: order.version }),
 *   reason: 'Cancelling an order cannot be undone.',
 *   ttlSeconds: 300,
 *   describe: (_envelope, order) => `Cancel order ${order.id} (${order.description})`,
 * })
 */
export function requiresConfirmation<TArgs, TTarget>(policy: ConfirmationPolicy<TArgs, TTarget>): ConfirmationPolicy<TArgs, TTarget> {
  return Object.freeze({ ...policy });
}
