import type { BudgetScope } from './spend-budget.js';

/** What a model budget counts: tokens (input and output) or their cost by the application's price table. */
export const ModelBudgetMeasure = {
  Tokens: 'tokens',
  Cost: 'cost',
} as const;

/** A model budget's measure. */
export type ModelBudgetMeasure = (typeof ModelBudgetMeasure)[keyof typeof ModelBudgetMeasure];

/**
 * One budget on model calls (docs/budgets.md, "Token and cost budgets"): at most `limit` tokens, or `limit` of the
 * price table's unit, per scope and window. Before each model call its estimate is reserved; after it, the usage
 * the provider reported is committed and the rest released.
 *
 * @example { name: 'daily-tokens', measure: 'tokens', limit: 200_000, per: 'actor', window: 86_400 }
 */
export interface ModelBudget {
  /** The budget's name: its windows are its own, whichever agent calls the model. */
  readonly name: string;
  /** `tokens`: input plus output tokens; `cost`: their price, in the unit of `prices` (cents, millicents). */
  readonly measure: ModelBudgetMeasure;
  /** The most one scope may use per window: a non-negative safe integer. */
  readonly limit: number;
  /**
   * `actor`: `{ tenant, actor: actorKey(actor) }` (needs the module's `actorKey`); `tenant`: `{ tenant }`;
   * `conversation`: `{ tenant, conversation: context.metadata.conversationId }`. A call without that key is a
   * wiring fault (`MissingModelBudgetScopeError`).
   */
  readonly per: BudgetScope;
  /** The window's length in seconds, aligned to the epoch (`floor(t / w) * w`), as spend budgets' are. */
  readonly window: number;
}

/**
 * What one model costs, per million tokens, in the application's integer unit (cents; millicents for cheap
 * models): no floats, so totals add up exactly. A call's cost is rounded up, input and output each.
 *
 * @example { input: 250, output: 1_000 } // $2.50 and $10.00 per million tokens, in cents
 */
export interface ModelPrice {
  /** The price of one million input tokens: a non-negative safe integer. */
  readonly input: number;
  /** The price of one million output tokens: a non-negative safe integer. */
  readonly output: number;
  /**
   * The output tokens to reserve for this model when the model declares no maximum of its own (LangChain's
   * `ls_max_tokens`, else its request's `max_tokens`, `max_completion_tokens` or `max_output_tokens`: `ChatOpenAI`'s
   * `maxTokens`). Default: the module's `maxOutputTokens`.
   */
  readonly maxOutputTokens?: number;
}

/**
 * The module option `modelBudgets`: budgets on every model call of the agents whose middleware
 * `ModelBudgets.forAgent()` made, the price of each model, and the output to reserve when a model declares none.
 *
 * @example
 * modelBudgets: {
 *   prices: { 'gpt-4o-mini': { input: 15, output: 60 } },
 *   budgets: [{ name: 'daily-cost', measure: 'cost', limit: 500, per: 'actor', window: 86_400 }],
 *   maxOutputTokens: 1_024,
 * }
 */
export interface ModelCallBudgets {
  /**
   * The price table, by model name (LangChain's `ls_model_name`: `ChatOpenAI`'s `model`). With a `cost` budget, a
   * model missing from it is a typed error (`UnpricedModelError`), never free; a `cost` budget without any price does
   * not boot.
   */
  readonly prices?: Readonly<Record<string, ModelPrice>>;
  /** The budgets every model call counts against. */
  readonly budgets: readonly ModelBudget[];
  /** The output tokens to reserve for a model that declares no maximum and has none in its price entry. */
  readonly maxOutputTokens?: number;
}
