import type { ActionContext, AnyActionContext } from '../context/action-context.js';
import type { VerdictActor } from '../context/verdict-types.js';
import type { JsonObject, JsonValue } from '../fingerprints/json-value.js';
import type { Envelope } from '../vocabulary/envelope.js';

/** Default time an item waits for review and its deferred run: 86 400 seconds (one day). */
export const DEFAULT_REVIEW_TTL_SECONDS = 86_400;

/** Who may review an item, checked with CASL on the bound target (docs/review-lane.md). */
export interface ReviewerPolicy<TArgs = any, TTarget = any, TContext extends AnyActionContext = any> {
  /** The CASL action a reviewer needs on the bound target. Default: `'review'`. */
  readonly action?: string;
  /**
   * The trusted facts of the target the reviewer's ability is checked against, as the capability's CASL
   * subject type (`can('review', subject('Order', facts))`), with `capability` added: e.g.
   * `{ tenantId, orderId, amount }`. Default: `{ capability }` only. Plain JSON values only (a date as its ISO
   * string): a `Date`, a BigInt or an `undefined` value fails the call with `NonCanonicalValueError` at
   * `$.reviewer.subject…`, nothing parked (ADR 0201).
   */
  readonly subject?: (envelope: Envelope<TArgs, TContext>, target: TTarget) => JsonObject;
}

/**
 * The review lane (docs/review-lane.md): the proposal is parked as a durable review item, the model gets
 * the fixed `not_executed` answer with `require_review`, a reviewer who is not the requester approves it,
 * and a worker re-runs the whole pipeline as the requester against a fresh target and executes it at most
 * once. Verdict always adds the capability, the execution-target policy, the complete arguments, the
 * actor and the tenant (fingerprinted) to the binding, whatever `bind` returns (as for receipts, ADR 0015).
 */
export interface ReviewPolicy<TArgs = any, TTarget = any, TActor = any, TContext extends AnyActionContext = any> {
  /**
   * The trusted state of the resource the review is bound to (its id and version). Any change of it
   * between parking and execution denies the deferred run at stage `review`.
   */
  readonly bind: (envelope: Envelope<TArgs, TContext>, target: TTarget) => JsonObject;
  /** Why review is required, shown to the reviewer (and, over MCP, in the pending result's `_meta["verdict/review"]`). */
  readonly reason: string;
  /** How long the item may wait for review and for its run. Default {@link DEFAULT_REVIEW_TTL_SECONDS}. */
  readonly ttlSeconds?: number;
  /** What the reviewer is asked to approve, built from the trusted target — never model-written prose. */
  readonly describe?: (envelope: Envelope<TArgs, TContext>, target: TTarget) => string;
  /** Who may review: the CASL action and the target's facts. Default: `review` on `{ capability }`. */
  readonly reviewer?: ReviewerPolicy<TArgs, TTarget, TContext>;
  /**
   * The actor's stable identity: bound into the item, compared with the reviewer's (a requester never
   * reviews their own item), and handed to the `rehydrate` hook. Default: the review lane's `actorKey`, else the
   * module's; with no key anywhere the module does not boot (`VerdictConfigurationError`).
   *
   * @example actorKey: (actor: User) => actor.id
   */
  actorKey?(actor: TActor): JsonValue;
}

/**
 * Declares the review lane for a capability (see {@link ReviewPolicy}; default TTL {@link DEFAULT_REVIEW_TTL_SECONDS}).
 * Needs `review: { items, queue, rehydrate }` and an `executionClaims` store in `VerdictModule.forRoot` (a web-only
 * process, `review: { items, queue, work: false }`, needs neither `rehydrate` nor the claim store).
 *
 * @example
 * requiresReview: requiresReview({
 *   bind: (_envelope, order: Order) => ({ order: order.id, version: order.version }),
 *   reason: 'Refunds above 500 EUR are reviewed by staff.',
 *   describe: (envelope, order) => `Refund ${envelope.arguments.amount} EUR on order ${order.id}`,
 *   reviewer: { subject: (_envelope, order) => ({ tenantId: order.tenantId }) },
 *   actorKey: (actor: Customer) => actor.id,
 * })
 */
export function requiresReview<
  TArgs,
  TTarget,
  TActor = VerdictActor,
  TContext extends AnyActionContext = ActionContext,
>(policy: ReviewPolicy<TArgs, TTarget, TActor, TContext>): ReviewPolicy<TArgs, TTarget, TActor, TContext> {
  return Object.freeze({ ...policy });
}
