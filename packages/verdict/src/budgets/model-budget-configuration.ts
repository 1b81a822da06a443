import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { BudgetScope } from './spend-budget.js';
import { type ModelBudget, ModelBudgetMeasure, type ModelCallBudgets, type ModelPrice } from './model-budget.js';
import type { ModelBudgetOptions } from './model-budget-options.interface.js';
import { isWindowSeconds } from '../rate-limits/fixed-window.js';
import { isName } from '../shared/is-name.js';
import { isPlainObject } from '../shared/is-plain-object.js';
import { unknownKeys } from '../shared/unknown-keys.js';
import { notABudgetStore } from './budget-configuration.js';

const SCOPES: readonly unknown[] = Object.values(BudgetScope);
const MEASURES: readonly unknown[] = Object.values(ModelBudgetMeasure);

const isCount = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 0;

/** The keys of `modelBudgets`, of each budget and of each price: any other is refused, never ignored. */
const MODEL_BUDGETS_KEYS = ['prices', 'budgets', 'maxOutputTokens'] as const satisfies ReadonlyArray<
  keyof ModelCallBudgets
>;
const BUDGET_KEYS = ['name', 'measure', 'limit', 'per', 'window'] as const satisfies ReadonlyArray<keyof ModelBudget>;
const PRICE_KEYS = ['input', 'output', 'maxOutputTokens'] as const satisfies ReadonlyArray<keyof ModelPrice>;

/**
 * Why `value` has keys outside `allowed`, as "an unknown key "maxOutputToken": its keys are …"; `null` when it has
 * none. Read as nothing, a misspelt optional key would boot as left out: a `maxOutputToken` set no maximum to reserve.
 */
function unknownKeysProblem(value: object, allowed: readonly string[]): string | null {
  const unknown = unknownKeys(value, allowed);
  if (unknown.length === 0) return null;
  return `${unknown.length === 1 ? 'an unknown key' : 'unknown keys'} ${unknown.map((key) => JSON.stringify(key)).join(', ')}: its keys are ${allowed.join(', ')}.`;
}

/**
 * Boot-time checks of `modelBudgets`: at least one budget, each with a unique non-blank name, a known measure and
 * scope (`actor` needs the module's `actorKey`), a non-negative safe-integer limit and a positive whole window;
 * prices and output maxima as non-negative safe integers, and at least one price when a budget measures cost (every
 * call of an unpriced model throws `UnpricedModelError`); and a budget store to count them in. `modelBudgets` itself must
 * be an object (`null` is refused: leave it out), and it, each budget and each price has only its own keys.
 *
 * @throws VerdictConfigurationError naming what to fix.
 */
export function assertModelBudgetsConfigured(
  config: ModelCallBudgets,
  options: Pick<ModelBudgetOptions, 'budgets' | 'actorKey'>,
): void {
  const fail = (message: string): never => {
    throw new VerdictConfigurationError(`modelBudgets ${message}`);
  };
  if (typeof config !== 'object' || config === null)
    fail(
      `must be { budgets, prices?, maxOutputTokens? }, not ${config === null ? 'null' : `a ${typeof config}`}: leave it out for no model budgets.`,
    );
  const unknownTop = unknownKeysProblem(config, MODEL_BUDGETS_KEYS);
  if (unknownTop !== null) fail(`has ${unknownTop}`);
  if (!Array.isArray(config.budgets) || config.budgets.length === 0)
    fail('needs at least one budget: budgets: [{ name, measure, limit, per, window }].');
  const names = new Set<string>();
  for (const budget of config.budgets) {
    if (typeof budget !== 'object' || budget === null)
      fail('has a budget that is not an object: budgets: [{ name, measure, limit, per, window }].');
    const { name, measure, limit, per, window } = budget;
    if (!isName(name)) fail('has a budget without a name.');
    const where = `budget "${name}"`;
    if (names.has(name)) fail(`declares ${where} twice: give each budget its own name.`);
    const unknownInBudget = unknownKeysProblem(budget, BUDGET_KEYS);
    if (unknownInBudget !== null) fail(`${where} has ${unknownInBudget}`);
    names.add(name);
    if (!MEASURES.includes(measure)) fail(`${where} must measure one of ${MEASURES.join(', ')}.`);
    if (!SCOPES.includes(per)) fail(`${where} must count per one of ${SCOPES.join(', ')}.`);
    if (!isCount(limit)) fail(`${where} needs a limit that is a non-negative safe integer.`);
    if (!isWindowSeconds(window))
      fail(`${where} needs a window that is a positive whole number of seconds (at most 3,155,760,000: 100 years).`);
    if (per === BudgetScope.Actor && typeof options.actorKey !== 'function')
      fail(`${where} counts per actor, but the module has no actorKey: pass \`actorKey\` to VerdictModule.forRoot.`);
  }
  // Prices are by model name: a `null` (no "left out") or an array (`[]` would boot as "no prices") is refused.
  if (config.prices !== undefined && !isPlainObject(config.prices))
    fail(
      `.prices must be an object of prices by model name (prices: { 'gpt-4o-mini': { input, output } }), not ${config.prices === null ? 'null' : Array.isArray(config.prices) ? 'an array' : `a ${typeof config.prices}`}: leave it out for none.`,
    );
  for (const [model, price] of Object.entries(config.prices ?? {})) {
    if (!(isCount(price?.input) && isCount(price?.output)))
      fail(`price of "${model}" needs input and output per million tokens as non-negative safe integers.`);
    if (price.maxOutputTokens !== undefined && !isCount(price.maxOutputTokens))
      fail(`price of "${model}" has a maxOutputTokens that is not a non-negative safe integer.`);
    const unknownInPrice = unknownKeysProblem(price, PRICE_KEYS);
    if (unknownInPrice !== null) fail(`price of "${model}" has ${unknownInPrice}`);
  }
  const costed = config.budgets.find(({ measure }) => measure === ModelBudgetMeasure.Cost);
  if (costed !== undefined && Object.keys(config.prices ?? {}).length === 0)
    fail(
      `budget "${costed.name}" measures cost, but there are no prices: every model call would throw UnpricedModelError. Price your models (prices: { 'gpt-4o-mini': { input, output } }) or measure tokens.`,
    );
  if (config.maxOutputTokens !== undefined && !isCount(config.maxOutputTokens))
    fail('.maxOutputTokens must be a non-negative safe integer.');
  if (options.budgets === undefined)
    fail('need a budget store: pass `budgets` to VerdictModule.forRoot (TypeOrmBudgetStore), which counts them.');
  const notStore = notABudgetStore(options.budgets);
  if (notStore !== null) fail(`need a budget store, but ${notStore}`);
}
