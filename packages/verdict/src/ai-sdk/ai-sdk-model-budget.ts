import type { LanguageModelMiddleware } from 'ai';
import type { ModelBudgetGate, ModelCallEstimate, ModelUsage } from '../budgets/model-budget.gate.js';
import { inputTokenBound } from '../budgets/input-token-bound.js';
import { reportedUsage } from '../budgets/reported-usage.js';
import type { ActionContextStore } from '../context/action-context.store.js';

type WrapGenerate = NonNullable<LanguageModelMiddleware['wrapGenerate']>;
type CallParams = Parameters<WrapGenerate>[0]['params'];
type CallModel = Parameters<WrapGenerate>[0]['model'];
type ReportedUsage = Awaited<ReturnType<Parameters<WrapGenerate>[0]['doGenerate']>>['usage'];

/** Options of {@link aiSdkModelBudget}. */
export interface AiSdkModelBudgetOptions {
  /**
   * Your own count of a call's input tokens (the prompt, the tool definitions and a structured output's schema), a
   * non-negative safe integer. Default: an upper bound from their UTF-8 bytes — of what the call carries: pass your
   * own count when the provider adds tokens the call does not carry (images or files passed by URL).
   */
  readonly estimateInputTokens?: (params: CallParams) => number;
}

/**
 * The module's token and cost budgets (`modelBudgets`, docs/budgets.md) as a Vercel AI SDK language-model middleware:
 * before each call its estimate (the tokens of the prompt, the tools and a structured output's schema, plus the
 * call's `maxOutputTokens`, else the configured maximum) is reserved in every budget of the action context's actor,
 * tenant or conversation; a call without room never reaches the provider and stops the generation with
 * `ModelBudgetExceededError`, as do the errors the budget throws before a call (`UnpricedModelError`,
 * `MissingModelBudgetScopeError`, `MissingActionContextError`). How the stop reaches the caller is the AI SDK's
 * (ADR 0199):
 *
 * - under `generateText`, the typed error rejects it as it is;
 * - under `streamText`, it follows the SDK's convention for an error in a stream: it reaches `onError` (`{ error }`)
 *   and is an `error` part of `fullStream` (and of `toUIMessageStream()`, whose `onError` makes its text), as it is.
 *   `text` and `steps` reject with the SDK's `NoOutputGeneratedError` when no step ran, and resolve with the earlier
 *   steps' output after a mid-run stop — so a streamed route records the stop in `onError`, and a piped response
 *   (`pipeUIMessageStreamToResponse`) resolves, having sent the error part.
 *
 * The usage the provider reports is committed and the rest released; without usage, or when the call fails, the
 * estimate is kept. A stream is settled when it finishes; one abandoned before its end keeps its estimate. The
 * model's name is its `modelId`.
 *
 * @example
 * const model = wrapLanguageModel({ model: openai('gpt-4o-mini'), middleware: aiSdkModelBudget(gate, contexts) });
 * await contexts.run(context, () => generateText({ model, prompt, maxOutputTokens: 512 }));
 * // Streamed: the stop reaches `onError` as it is; the piped response sends the error part and resolves.
 * const onError = ({ error }: { error: unknown }) => {
 *   if (error instanceof ModelBudgetExceededError) recordStop(error);
 * };
 * contexts.run(context, () => streamText({ model, prompt, onError })).pipeUIMessageStreamToResponse(res);
 */
export function aiSdkModelBudget(
  gate: ModelBudgetGate,
  contexts: ActionContextStore,
  options: AiSdkModelBudgetOptions = {},
): LanguageModelMiddleware {
  const estimateOf = (params: CallParams, model: CallModel): ModelCallEstimate => ({
    model: model.modelId,
    inputTokens: options.estimateInputTokens?.(params) ?? callTokenBound(params),
    maxOutputTokens: params.maxOutputTokens,
  });
  return {
    wrapGenerate: async ({ doGenerate, params, model }) =>
      gate.withinBudgets(contexts.require(), estimateOf(params, model), doGenerate, (result) => usageOf(result.usage)),
    wrapStream: async ({ doStream, params, model }) => {
      // Thrown, not a failing stream: `streamText` makes it an `error` part for `onError`, and a response piped from
      // the generation still ends well (ADR 0199).
      const hold = await gate.reserve(contexts.require(), estimateOf(params, model));
      let result: Awaited<ReturnType<typeof doStream>>;
      try {
        result = await doStream();
      } catch (error) {
        await gate.settle(hold, null);
        throw error;
      }
      let usage: ModelUsage | null = null;
      const stream = result.stream.pipeThrough(
        new TransformStream({
          transform(part, controller) {
            if (part.type === 'finish') usage = usageOf(part.usage);
            controller.enqueue(part);
          },
          flush: () => gate.settle(hold, usage),
        }),
      );
      return { ...result, stream };
    },
  };
}

/**
 * The call's bound: its prompt as messages; its tools, for a structured output (`Output.object(...)`) the JSON
 * response format with its schema, and its provider options (an OpenAI `instructions`, say), as tools — the provider
 * is sent, and bills, them all.
 */
function callTokenBound(params: CallParams): number {
  const tools: unknown[] = [...(params.tools ?? [])];
  if (params.responseFormat?.type === 'json') tools.push(params.responseFormat);
  if (params.providerOptions !== undefined) tools.push(params.providerOptions);
  return inputTokenBound(params.prompt, tools);
}

/**
 * The provider's reported totals, or `null` when either is missing or not a token count: a provider or proxy may
 * answer without `inputTokens` or `outputTokens` whatever the SDK's type says, and its answer must still reach the
 * caller.
 */
function usageOf(usage: ReportedUsage | undefined): ModelUsage | null {
  const reported = usage as Partial<NonNullable<ReportedUsage>> | null | undefined;
  return reportedUsage(reported?.inputTokens?.total, reported?.outputTokens?.total);
}
