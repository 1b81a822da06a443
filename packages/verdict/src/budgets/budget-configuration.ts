import type { CapabilityDefinition } from '../capabilities/capability-definition.js';
import type { CapabilityRegistryOptions } from '../capabilities/capability-registry-options.interface.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { BudgetScope, type SpendBudget } from './spend-budget.js';
import { isWindowSeconds } from '../rate-limits/fixed-window.js';
import { isName } from '../shared/is-name.js';
import { notAStore } from '../shared/not-a-store.js';
import { BUDGET_STORE_METHODS } from './budget-store.interface.js';

const SCOPES: readonly unknown[] = Object.values(BudgetScope);

/**
 * Boot-time checks of a capability's spend budget: an object with an `amountOf` function, a non-negative
 * safe-integer limit, a positive whole number of seconds as its window, a known scope (`actor` needs the module's
 * `actorKey`), a non-blank `name` and `reason` when given, and a `BudgetStore` (`notABudgetStore`). `fail` throws
 * the capability's configuration error.
 */
export function assertBudgetConfigured(
  budget: SpendBudget,
  options: Pick<CapabilityRegistryOptions, 'budgets' | 'actorKey'>,
  fail: (message: string) => never,
): void {
  if (typeof budget !== 'object' || budget === null)
    fail('has a budget that is not an object: use budget: { amountOf, limit, per, window }, or leave it out.');
  if (typeof budget.amountOf !== 'function')
    fail('has a budget without amountOf: use budget: { amountOf, limit, per, window }.');
  if (!(Number.isSafeInteger(budget.limit) && budget.limit >= 0))
    fail('has a budget whose limit must be a non-negative safe integer (in your unit: cents, credits).');
  if (!isWindowSeconds(budget.window))
    fail('has a budget whose window must be a positive whole number of seconds (at most 3,155,760,000: 100 years).');
  if (!SCOPES.includes(budget.per)) fail(`has a budget whose per must be one of ${SCOPES.join(', ')}.`);
  if (budget.name !== undefined && !isName(budget.name))
    fail('has a budget whose name is blank: leave it out (the capability name) or name the shared budget.');
  if (budget.reason !== undefined && !isName(budget.reason))
    fail(
      'has a budget whose reason is blank or not a string (the internal reason recorded when it refuses): leave it out (`spend budget exhausted`) or give one.',
    );
  if (budget.per === BudgetScope.Actor && typeof options.actorKey !== 'function')
    fail('has a budget per actor, but the module has no actorKey: pass `actorKey` to VerdictModule.forRoot.');
  if (options.budgets === undefined)
    fail(
      'has a budget, but no budget store is configured: pass `budgets` to VerdictModule.forRoot (TypeOrmBudgetStore).',
    );
  const notStore = notABudgetStore(options.budgets);
  if (notStore !== null) fail(`has a budget, but ${notStore}`);
}

/**
 * Why the configured `budgets`, which a budget, `callCeilings` or `modelBudgets` count in, is no budget store (`null`,
 * a `{}`: it lacks a method Verdict calls), or `null` when it is one. Its callers first refuse a `budgets` left out.
 */
export function notABudgetStore(budgets: unknown): string | null {
  const notStore = notAStore(budgets, 'budgets', 'BudgetStore', BUDGET_STORE_METHODS);
  return notStore === null ? null : `${notStore}: pass a TypeOrmBudgetStore to VerdictModule.forRoot.`;
}

/**
 * Capabilities whose budgets carry one name (`budget.name`, else the capability's name) share its windows only when
 * they declare it alike: a looser `limit` elsewhere would let the shared window pass the tighter one, and another
 * `per` or `window` would silently make two budgets of one. So every declaration of a name must agree on all three.
 *
 * @throws VerdictConfigurationError naming both capabilities when `definition`'s budget differs from one declared earlier.
 */
export function assertOneBudgetPerName(
  definition: CapabilityDefinition,
  declared: Iterable<CapabilityDefinition>,
): void {
  const budget = definition.budget;
  if (budget === undefined) return;
  const name = budget.name ?? definition.name;
  for (const other of declared) {
    const otherBudget = other.budget;
    if (otherBudget === undefined || (otherBudget.name ?? other.name) !== name) continue;
    if (otherBudget.limit === budget.limit && otherBudget.per === budget.per && otherBudget.window === budget.window)
      continue;
    throw new VerdictConfigurationError(
      `Capability "${definition.name}" (${definition.declaredAt}) declares the budget "${name}" with limit ${budget.limit}, per ${budget.per}, window ${budget.window}, but "${other.name}" declares it with limit ${otherBudget.limit}, per ${otherBudget.per}, window ${otherBudget.window}: a shared budget needs the same limit, scope and window everywhere (or give each its own name).`,
      { capability: definition.name },
    );
  }
}
