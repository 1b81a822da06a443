import { createMiddleware } from 'langchain';
import type { ModelBudgetGate } from '../budgets/model-budget.gate.js';
import type { ActionContextStore } from '../context/action-context.store.js';
import { modelFactsOf } from './model-facts.js';
import { estimateInputTokens, type ModelInput } from './model-input-tokens.js';
import { usageOf } from './model-usage.js';

/** Options of {@link ModelCallBudget}. */
export interface ModelCallBudgetOptions {
  /**
   * Your own estimate of a call's input tokens (a tokenizer's count), a non-negative safe integer. Default: an upper
   * bound from the UTF-8 bytes of what the call carries — messages, tools, the structured-output schema
   * (`estimateInputTokens`). Pass your own when the provider counts more than the call carries (images or files
   * passed by URL). An estimate below the real count lets concurrent calls together pass a limit by the difference.
   */
  readonly estimateInputTokens?: (input: ModelInput) => number;
}

/**
 * Token and cost budgets on one `createAgent` agent's model calls (docs/budgets.md, "Token and cost budgets"): before
 * each call its estimate (input tokens plus the model's maximum output) is reserved in every `modelBudgets` budget of
 * the action context's actor, tenant or conversation; a call that does not fit is never made, and the run ends with
 * `ModelBudgetExceededError`. After the call the provider's `usage_metadata` is committed and the rest of the
 * estimate released; a call without usage, or that failed, keeps the estimate. Place its middleware **last**, next to
 * the model, so that only the provider's call is counted. Runs must be inside the action context
 * (`ActionContextStore.run`).
 *
 * @example
 * const budget = modelBudgets.forAgent();
 * const agent = createAgent({ model, tools, middleware: [guard.middleware(), budget.middleware()] });
 */
export class ModelCallBudget {
  constructor(
    private readonly gate: ModelBudgetGate,
    private readonly contexts: ActionContextStore,
    private readonly options: ModelCallBudgetOptions = {},
  ) {}

  /** The agent middleware. */
  middleware() {
    return createMiddleware({
      name: 'VerdictModelBudget',
      wrapModelCall: async (request, handler) => {
        const context = this.contexts.require();
        const facts = modelFactsOf(request.model);
        const { systemMessage, messages, tools, responseFormat } = request;
        const input = { systemMessage, messages, tools, responseFormat };
        const inputTokens = this.options.estimateInputTokens?.(input) ?? estimateInputTokens(input);
        return this.gate.withinBudgets(context, { ...facts, inputTokens }, () => handler(request), usageOf);
      },
    });
  }
}
