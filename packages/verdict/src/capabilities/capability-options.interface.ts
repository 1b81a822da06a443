import type { SpendBudget } from '../budgets/spend-budget.js';
import type { AnyActionContext } from '../context/action-context.js';
import type { ConfirmationPolicy } from '../approvals/requires-confirmation.js';
import type { ReviewPolicy } from '../review/requires-review.js';
import type { AtMostOncePolicy } from '../execution-claims/at-most-once.js';
import type { ForbiddenStatesPolicy } from '../forbidden-states/forbid-states.js';
import type { FixedWindowPolicy } from '../rate-limits/fixed-window.js';
import type { ExecutionTargetPolicy } from '../targets/execution-target-policy.js';
import type { TargetResolver } from '../targets/target-resolver.js';
import type { ArgumentSchema } from './argument-schema.js';
import type { ProvenancePolicy } from '../provenance/provenance-policy.js';

/**
 * Declares a capability: a named domain operation an agent may propose (`orders.cancel`, not CRUD).
 * One declaration types the rest: `TArgs` is the `arguments` schema's type, `TTarget` the resolver's (written
 * inline, the factories infer both: give `fromProposal` the schema),
 * `TContext` the registered `ActionContext` (or a library's own, named by its resolver or gate). The
 * defaults (`any`) are the erased form the registry holds.
 *
 * @example
 * \@Capability({
 *   name: 'orders.cancel', description: 'Cancel one of your orders', action: 'cancel', subject: 'Order',
 *   arguments: orderId, // z.object({ orderId: z.number().int() })
 *   resolveTarget: fromProposal(orderId, ({ arguments: a, context }) => orders.findForTenant(context.tenant, a.orderId)), // a: { orderId: number }
 *   executionTarget: ExecutionTargetPolicy.refresh({ name: 'order-by-id', identity: (order) => order.id, refresh }), // order: Order
 * })
 * cancel(action: AuthorizedAction<{ orderId: number }, Order>) { ... }
 */
export interface CapabilityOptions<TArgs = any, TTarget = any, TContext extends AnyActionContext = any> {
  /** Unique, non-blank; shown to the model as the tool's capability. */
  readonly name: string;
  readonly description: string;
  /** The CASL action checked with `ability.can(action, target)`. */
  readonly action: string;
  /** The CASL subject type the target must be detected as (`'Order'`); a different type is denied. */
  readonly subject: string;
  readonly arguments: ArgumentSchema<TArgs>;
  readonly resolveTarget: TargetResolver<TArgs, TTarget, any, TContext>;
  /** Required: `ExecutionTargetPolicy.refresh(...)` or `.acceptStaleSnapshot(...)`. Missing is a boot error. */
  readonly executionTarget: ExecutionTargetPolicy<TTarget, TContext>;
  /**
   * Declares that the executor changes state (writes, sends, pays). `verdict validate` reports a mutating
   * capability without `atMostOnce` (a redelivered tool call would repeat the effect). Only declared
   * capabilities are checked: Verdict does not guess from the CASL action. Default: `false`.
   */
  readonly mutates?: boolean;
  /**
   * Declares that the capability is consequential: a side effect, or an outbound transfer of data (a share, an
   * e-mail). Under the module's provenance strict mode, a consequential capability influenced by untrusted
   * content needs confirmation unless its `provenance` policy says otherwise. Default: its `mutates`.
   */
  readonly consequential?: boolean;
  /**
   * The provenance policy (docs/provenance.md, step 1a): what the capability's results are, and `allow`,
   * `require_confirmation` or `deny` when untrusted content was in the proposal's context or supplied an
   * argument's value. `require_confirmation` needs an `ApprovalReceiptStore`; bound tools only.
   * @example provenance: { untrustedContext: 'require_confirmation', arguments: { recipient: 'trusted_only' } }
   */
  readonly provenance?: ProvenancePolicy<TArgs, TContext, TTarget>;
  /**
   * Field-level argument authorization: each named argument field that the proposal sets must be
   * permitted by CASL field rules, `ability.can(action, target, field)`. Default: none.
   */
  readonly authorizeFields?: readonly string[];
  /**
   * Meters authorized execution attempts with `fixedWindow({...})` (step 11). Consumed only after both
   * authorizations; denials and pending confirmations consume nothing. Needs a `RateLimitStore`.
   */
  readonly rateLimit?: FixedWindowPolicy<TArgs, TTarget, TContext>;
  /**
   * A spend budget (step 11a, docs/budgets.md): `amountOf` what each call spends, at most `limit` per `window` seconds
   * `per` actor, tenant or conversation. Reserved before the executor, committed when it returns, released on a later
   * refusal or a fault; over the limit is `throttle` at stage `budget`. Needs a `BudgetStore`.
   * @example budget: { amountOf: ({ arguments: args }) => args.amountCents, limit: 50_000, per: 'actor', window: 86_400 }
   */
  readonly budget?: SpendBudget<TArgs, TTarget, TContext>;
  /**
   * Admits one logical operation to the executor at most once with `atMostOnce({...})` (step 13, the
   * last gate). Needs an `ExecutionClaimStore`.
   */
  readonly atMostOnce?: AtMostOncePolicy<TArgs, TTarget, TContext>;
  /**
   * Verified confirmation with `requiresConfirmation({...})` (steps 5, 10 and 12): the executor runs only
   * after a human approved this exact proposal, once. Needs an `ApprovalReceiptStore`; bound tools only.
   */
  readonly requiresConfirmation?: ConfirmationPolicy<TArgs, TTarget, TContext['actor'], TContext>;
  /**
   * The review lane with `requiresReview({...})` (step 5, docs/review-lane.md): the proposal is parked for a
   * reviewer and answered `require_review`; once approved, a worker re-runs the pipeline as the requester
   * and executes it at most once. Needs `review` in `VerdictModule.forRoot`, and `executionClaims` in a process
   * that works the queue.
   */
  readonly requiresReview?: ReviewPolicy<TArgs, TTarget, TContext['actor'], TContext>;
  /**
   * Stateful trajectory gate with `forbidStates(stateModel, effectOf, { scope })` (step 10a): the call's
   * effects are folded onto its trajectory's state (the scope says which calls share it: a conversation, an
   * actor, a tenant or an application key) and the call is denied if a forbidden predicate would become
   * true. Needs a `TrajectoryStore`.
   */
  readonly forbidStates?: ForbiddenStatesPolicy<TArgs, TTarget, TContext>;
  /**
   * `false` runs the capability's policies in shadow mode (docs/shadow-mode.md, ADR 0098): where CASL (steps 3 and 9),
   * its provenance policy (1a), confirmation (5, 10, 12), forbidden states (10a), its rate limit (11) or its spend
   * budget (11a) would refuse, the refusal is recorded as `would_deny` / `would_confirm`, `ShadowDecisionRecorded` is
   * raised, and the call goes on. Never softened: containment, call ceilings, bad input, an unknown or unresolvable
   * target, resource substitution, the review lane, plans, execution claims and application faults. Boot warns and
   * `verdict validate` reports every capability in shadow mode. Default: `true`.
   * @example enforce: process.env.REFUND_POLICY_ENFORCED === 'true'
   */
  readonly enforce?: boolean;
}
