import type { CapabilityRegistryOptions } from '../capabilities/capability-registry-options.interface.js';
import { BudgetScope, type SpendBudget } from './spend-budget.js';

const SCOPES: readonly unknown[] = Object.values(BudgetScope);

/**
 * Boot-time checks of a capability's spend budget: an `amountOf` function, a non-negative safe-integer limit, a
 * positive whole number of seconds as its window, a known scope (`actor` needs the module's `actorKey`), and a
 * `BudgetStore`. `fail` throws the capability's configuration error.
 */
export function assertBudgetConfigured(
  budget: SpendBudget,
  options: Pick<CapabilityRegistryOptions, 'budgets' | 'actorKey'>,
  fail: (message: string) => never,
): void {
  if (typeof budget.amountOf !== 'function')
    fail('has a budget without amountOf: use budget: { amountOf, limit, per, window }.');
  if (!(Number.isSafeInteger(budget.limit) && budget.limit >= 0))
    fail('has a budget whose limit must be a non-negative safe integer (in your unit: cents, credits).');
  if (!(Number.isSafeInteger(budget.window) && budget.window > 0))
    fail('has a budget whose window must be a positive whole number of seconds.');
  if (!SCOPES.includes(budget.per)) fail(`has a budget whose per must be one of ${SCOPES.join(', ')}.`);
  if (budget.name !== undefined && !(typeof budget.name === 'string' && budget.name.trim() !== ''))
    fail('has a budget whose name is blank: leave it out (the capability name) or name the shared budget.');
  if (budget.per === BudgetScope.Actor && typeof options.actorKey !== 'function')
    fail('has a budget per actor, but the module has no actorKey: pass `actorKey` to VerdictModule.forRoot.');
  if (options.budgets === undefined)
    fail(
      'has a budget, but no budget store is configured: pass `budgets` to VerdictModule.forRoot (TypeOrmBudgetStore).',
    );
}
