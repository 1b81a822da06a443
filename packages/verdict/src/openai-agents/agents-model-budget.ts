import type { Model, ModelProvider, ModelRequest, StreamEvent } from '@openai/agents';
import type { ModelBudgetGate, ModelCallEstimate, ModelUsage } from '../budgets/model-budget.gate.js';
import { inputTokenBound } from '../budgets/input-token-bound.js';
import { reportedUsage } from '../budgets/reported-usage.js';
import type { ActionContextStore } from '../context/action-context.store.js';
import { inputItems } from './agents-input.js';
import { wrappedModel } from './wrapped-model.js';

/** Options of {@link agentsModelBudget}. */
export interface AgentsModelBudgetOptions {
  /**
   * Your own count of a call's input tokens (instructions, input items, tools, handoffs and output schema), a
   * non-negative safe integer. Default: an upper bound from their UTF-8 bytes — of what the request carries. Pass
   * your own count when the provider keeps the conversation (`previousResponseId`, `conversationId`: earlier turns
   * are billed but not sent) or images and files are passed by URL (few bytes, many tokens).
   */
  readonly estimateInputTokens?: (request: ModelRequest) => number;
}

/** The module's model budgets around OpenAI Agents models: see {@link agentsModelBudget}. */
export interface AgentsModelBudget {
  /** `inner`, whose every call is counted against the budgets as model `name` (the price table's key). */
  model(inner: Model, name: string): Model;
  /**
   * `inner`, whose every model is counted against the budgets under the name the agent asked it by; the default
   * model of an agent that names none is unnamed (a cost budget refuses it: `UnpricedModelError`).
   */
  provider(inner: ModelProvider): ModelProvider;
}

/**
 * The module's token and cost budgets (`modelBudgets`, docs/budgets.md) around an OpenAI Agents `Model` — the
 * SDK's one hook that sees each model call's request and its usage (input guardrails and run hooks see neither
 * for every call). Before each call its estimate (the request's tokens plus `modelSettings.maxTokens`, else the
 * configured maximum) is reserved in every budget of the action context's actor, tenant or conversation; a call
 * without room never reaches the provider, and `ModelBudgetExceededError` rejects the run (`run()`,
 * `Runner.run()`, a streamed run's completion). The usage the model reports (`ModelResponse.usage`, a stream's
 * `response_done`) is committed and the rest released; no usage — the SDK reports zero tokens when the provider
 * reported none — or a failed call keeps the estimate, and so does a stream abandoned before `response_done`.
 *
 * @example
 * const budget = agentsModelBudget(gate, contexts);
 * const agent = new Agent({ name: 'Support', model: budget.model(new OpenAIResponsesModel(client, 'gpt-4.1'), 'gpt-4.1') });
 * await contexts.run(context, () => run(agent, question));
 */
export function agentsModelBudget(
  gate: ModelBudgetGate,
  contexts: ActionContextStore,
  options: AgentsModelBudgetOptions = {},
): AgentsModelBudget {
  const estimateOf = (request: ModelRequest, name: string | undefined): ModelCallEstimate => ({
    model: name,
    inputTokens: options.estimateInputTokens?.(request) ?? requestTokenBound(request),
    maxOutputTokens: request.modelSettings.maxTokens,
  });
  const model = (inner: Model, name: string | undefined): Model =>
    wrappedModel(inner, {
      getResponse: async (request) =>
        gate.withinBudgets(
          contexts.require(),
          estimateOf(request, name),
          () => inner.getResponse(request),
          (response) => usageOf(response.usage),
        ),
      getStreamedResponse: (request) => streamed(inner, request, name),
    });
  async function* streamed(inner: Model, request: ModelRequest, name: string | undefined): AsyncIterable<StreamEvent> {
    const hold = await gate.reserve(contexts.require(), estimateOf(request, name));
    let usage: ModelUsage | null = null;
    try {
      for await (const event of inner.getStreamedResponse(request)) {
        if (event.type === 'response_done') usage = usageOf(event.response.usage);
        yield event;
      }
    } finally {
      // Also when the runner stops reading: what was not reported stays spent.
      await gate.settle(hold, usage);
    }
  }
  return {
    model: (inner, name) => model(inner, name),
    provider: (inner) => ({
      // The runner asks for '' (or nothing) when the agent names no model: the provider's default, unnamed here.
      getModel: async (name) => model(await inner.getModel(name), name === '' ? undefined : name),
    }),
  };
}

/** The request's bound: its instructions and input items as messages; tools, handoffs and output schema as tools. */
function requestTokenBound(request: ModelRequest): number {
  const messages: unknown[] = request.systemInstructions === undefined ? [] : [request.systemInstructions];
  messages.push(...inputItems(request));
  const tools: unknown[] = [...request.tools, ...request.handoffs];
  if (request.outputType !== 'text') tools.push(request.outputType);
  return inputTokenBound(messages, tools);
}

/** The reported totals, as {@link reportedUsage} reads them (the SDK's models report zeros when the provider reported none). */
function usageOf(usage: { inputTokens?: unknown; outputTokens?: unknown } | undefined): ModelUsage | null {
  return reportedUsage(usage?.inputTokens, usage?.outputTokens);
}
