import type { AnyActionContext } from '../context/action-context.js';
import type { Envelope } from '../vocabulary/envelope.js';

/** Whose spend a budget counts: the actor's (within their tenant), the tenant's, or one conversation's. */
export const BudgetScope = {
  Actor: 'actor',
  Tenant: 'tenant',
  Conversation: 'conversation',
} as const;

/** A budget scope. */
export type BudgetScope = (typeof BudgetScope)[keyof typeof BudgetScope];

/**
 * A spend budget on a capability (docs/budgets.md): each call spends `amountOf(envelope, target)` — a non-negative
 * safe integer in the application's own unit (cents, credits, messages) — of `limit` per `window` seconds for its
 * scope. The amount is reserved atomically before the executor runs, committed when it returns, and released when a
 * later gate refuses or the executor throws. A call that would take the window past the limit gets `throttle` at
 * stage `budget`, and spends nothing.
 *
 * @example
 * budget: { amountOf: ({ arguments: args }) => args.amountCents, limit: 50_000, per: 'actor', window: 86_400 }
 */
export interface SpendBudget<TArgs = any, TTarget = any, TContext extends AnyActionContext = any> {
  /**
   * What this call spends, from the validated arguments and the execution target: a non-negative safe integer.
   * Anything else is a fault of the application (`InvalidBudgetAmountError`), never a decision.
   */
  readonly amountOf: (envelope: Envelope<TArgs, TContext>, target: TTarget) => number;
  /** The most a scope may spend in one window (a non-negative safe integer; `0` refuses every positive amount). */
  readonly limit: number;
  /**
   * `actor`: `{ tenant, actor: actorKey(actor) }` (needs the module's `actorKey`); `tenant`: `{ tenant }`;
   * `conversation`: `{ tenant, conversation: context.metadata.conversationId }`. A call without that key is a
   * wiring fault (`MissingBudgetScopeError`).
   */
  readonly per: BudgetScope;
  /** The window's length in seconds; windows are aligned to the epoch (`floor(t / w) * w`), as rate limits are. */
  readonly window: number;
  /**
   * The budget's name: capabilities that declare the same name share one budget, and must declare the same limit,
   * scope and window (checked at boot). Default: the capability's name.
   */
  readonly name?: string;
  /** The internal reason recorded when the budget refuses (never shown to the model). Default: `spend budget exhausted`. */
  readonly reason?: string;
}
