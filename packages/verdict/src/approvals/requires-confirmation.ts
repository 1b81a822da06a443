import type { ActionContext, AnyActionContext } from '../context/action-context.js';
import type { VerdictActor } from '../context/verdict-types.js';
import type { JsonObject, JsonValue } from '../fingerprints/json-value.js';
import type { Envelope } from '../vocabulary/envelope.js';
import { type InferredFromCapability, inferredFromCapability } from '../capabilities/inferred-from-capability.js';

/** Default time a human has to approve: 900 seconds. */
export const DEFAULT_CONFIRMATION_TTL_SECONDS = 900;

/** Default cap of pending (unexpired, undecided) receipts per actor and capability: 10. */
export const DEFAULT_MAX_PENDING_RECEIPTS = 10;

/**
 * Verified confirmation (docs/approvals.md): a human approves one exact proposal — this actor, this resource
 * in this state, these arguments — once, before it expires. Verdict always adds the capability, the
 * execution-target policy, the complete arguments, the actor and tenant (fingerprinted) and the
 * conversation (`context.metadata.conversationId`, when the context has one) to the binding, whatever
 * `bind` returns (ADR 0015).
 */
export interface ConfirmationPolicy<TArgs = any, TTarget = any, TActor = any, TContext extends AnyActionContext = any> {
  /**
   * The trusted state of the resource an approval is bound to: its id and version. Any change of it after
   * approval invalidates the approval. Who asked (actor, tenant, conversation) is bound by Verdict.
   */
  readonly bind: (envelope: Envelope<TArgs, TContext>, target: TTarget) => JsonObject;
  /** Why confirmation is required, shown to the approver. */
  readonly reason: string;
  /** Default {@link DEFAULT_CONFIRMATION_TTL_SECONDS}. */
  readonly ttlSeconds?: number;
  /** What the approver is approving, built from the trusted target (never model-written prose or HTML). */
  readonly describe?: (envelope: Envelope<TArgs, TContext>, target: TTarget) => string;
  /**
   * The facts an approver's CASL ability is checked against at an `@ApprovalEndpoint()`, as the subject
   * `'Approval'` (with `capability` added): e.g. `{ tenantId, customerId, orderId }` of the target.
   * Default: `{ capability }` only. Plain JSON values only, stored alike by every receipt store (a date as its ISO
   * string): a `Date`, a BigInt or an `undefined` value fails the call with `NonCanonicalValueError` naming the path
   * (`$.subject.placedAt`) before the run's evidence is written, nothing issued (ADR 0201).
   */
  readonly subject?: (envelope: Envelope<TArgs, TContext>, target: TTarget) => JsonObject;
  /**
   * At most this many pending receipts per actor (within its tenant) and this capability; a proposal
   * that would issue one more is refused as a recorded `throttle`, and nothing is issued. Besides, one
   * tool call holds at most one pending receipt per actor. Default {@link DEFAULT_MAX_PENDING_RECEIPTS}.
   */
  readonly maxPending?: number;
  /**
   * The actor's stable identity, as bound into every receipt and counted by `maxPending`. Default: the
   * actor object itself, which must then be plain JSON (`NonCanonicalValueError` naming the path otherwise).
   *
   * Typed as the actor registered in `VerdictTypes`; a method signature, so an annotated
   * `(actor: User) => …` also fits where no actor type is registered (`unknown`).
   *
   * @example actorKey: (actor: User) => actor.id
   */
  actorKey?(actor: TActor): JsonValue;
}

/** What {@link requiresConfirmation} returns: inline in a capability, its types are the capability's. */
export interface TypedConfirmationPolicy<TArgs, TTarget, TActor, TContext extends AnyActionContext>
  extends ConfirmationPolicy<TArgs, TTarget, TActor, TContext>, InferredFromCapability {}

/**
 * Declares verified confirmation for a capability (see {@link ConfirmationPolicy}; defaults: TTL
 * {@link DEFAULT_CONFIRMATION_TTL_SECONDS}, {@link DEFAULT_MAX_PENDING_RECEIPTS} pending receipts per actor).
 *
 * @example
 * requiresConfirmation: requiresConfirmation({
 *   bind: (_envelope, order) => ({ order: order.id, version: order.version }), // order: the capability's target
 *   reason: 'Cancelling an order cannot be undone.',
 *   ttlSeconds: 300,
 *   maxPending: 3,
 *   describe: (_envelope, order) => `Cancel order ${order.id} (${order.description})`,
 * })
 */
export function requiresConfirmation<
  TArgs,
  TTarget,
  TActor = VerdictActor,
  TContext extends AnyActionContext = ActionContext,
>(
  policy: ConfirmationPolicy<TArgs, TTarget, TActor, TContext>,
): TypedConfirmationPolicy<TArgs, TTarget, TActor, TContext> {
  return inferredFromCapability(Object.freeze({ ...policy }));
}
