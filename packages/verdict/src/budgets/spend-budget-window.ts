import type { ActionContext } from '../context/action-context.js';
import type { ActorKey } from '../context/actor-key.js';
import { MissingBudgetScopeError } from '../errors/missing-budget-scope.error.js';
import { fingerprint } from '../fingerprints/fingerprint.js';
import { windowStartOf } from '../rate-limits/fixed-window.js';
import type { BudgetReservationAnswer, BudgetStore, BudgetWindow } from './budget-store.interface.js';
import { budgetScopeKeyOf } from './budget-scope-key.js';
import type { SpendBudget } from './spend-budget.js';

/**
 * The window of `capability`'s spend budget that a call in `context` at `now` counts in: its bucket
 * (`sha256(JCS({budget, per, window_seconds, binding}))`, the budget's `name` or else the capability's) and start.
 *
 * @throws MissingBudgetScopeError when the context has no key for the budget's scope.
 */
export function spendBudgetWindowOf(
  capability: string,
  budget: Pick<SpendBudget, 'name' | 'per' | 'window'>,
  context: ActionContext,
  now: Date,
  actorKey?: ActorKey,
): BudgetWindow & { readonly windowSeconds: number } {
  const binding = budgetScopeKeyOf(budget.per, context, actorKey);
  if (binding === null) throw new MissingBudgetScopeError(capability, budget.per);
  return {
    bucketFingerprint: fingerprint({
      budget: budget.name ?? capability,
      per: budget.per,
      window_seconds: budget.window,
      binding,
    }),
    windowStart: windowStartOf(now, budget.window),
    windowSeconds: budget.window,
  };
}

/**
 * Where `capability`'s spend budget stands for `context` now, for an operator's or a customer's view: what is
 * left in the current window (spent and held reservations both count) and when it ends. Reads by reserving nothing.
 *
 * @example const { remaining } = await spendBudgetStanding(store, 'orders.refund', budget, context, new Date(), actorKey);
 */
export async function spendBudgetStanding(
  store: BudgetStore,
  capability: string,
  budget: Pick<SpendBudget, 'name' | 'per' | 'window' | 'limit'>,
  context: ActionContext,
  now: Date,
  actorKey?: ActorKey,
): Promise<Omit<BudgetReservationAnswer, 'reserved'>> {
  const window = spendBudgetWindowOf(capability, budget, context, now, actorKey);
  const { remaining, resetAt } = await store.reserve({ ...window, limit: budget.limit, amount: 0 });
  return { remaining, resetAt };
}
