import type { LanguageModelMiddleware } from 'ai';
import type { ModelBudgetGate, ModelBudgetHold, ModelCallEstimate, ModelUsage } from '../budgets/model-budget.gate.js';
import { inputTokenBound } from '../budgets/input-token-bound.js';
import { reportedUsage } from '../budgets/reported-usage.js';
import type { ActionContextStore } from '../context/action-context.store.js';

type WrapGenerate = NonNullable<LanguageModelMiddleware['wrapGenerate']>;
type CallParams = Parameters<WrapGenerate>[0]['params'];
type CallModel = Parameters<WrapGenerate>[0]['model'];
type ReportedUsage = Awaited<ReturnType<Parameters<WrapGenerate>[0]['doGenerate']>>['usage'];
type StreamPart =
  Awaited<ReturnType<Parameters<WrapGenerate>[0]['doStream']>>['stream'] extends ReadableStream<infer P> ? P : never;

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
 * tenant or conversation; a call without room never reaches the provider, and `ModelBudgetExceededError` rejects
 * `generateText` / `streamText` as it is — under `streamText` its `text`, `steps` and other results, and reading its
 * stream throws it (not an `error` part: `onError` is not called), at the first step or a later one (ADR 0199). So
 * do the errors the budget throws before the call (`UnpricedModelError`, `MissingModelBudgetScopeError`,
 * `MissingActionContextError`). The usage the provider reports is committed and the rest released; without usage,
 * or when the call fails, the estimate is kept. A stream is settled when it finishes; one abandoned before its end
 * keeps its estimate. The model's name is its `modelId`.
 *
 * @example
 * const model = wrapLanguageModel({ model: openai('gpt-4o-mini'), middleware: aiSdkModelBudget(gate, contexts) });
 * await contexts.run(context, () => generateText({ model, prompt, maxOutputTokens: 512 }));
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
      let hold: ModelBudgetHold;
      try {
        hold = await gate.reserve(contexts.require(), estimateOf(params, model));
      } catch (error) {
        return { stream: failedStream(error) };
      }
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
 * The stream of a call refused before the provider was called: it fails with the refusal when it is read.
 * `streamText` turns an error that `wrapStream` throws into an `error` part of its stream, and then rejects its
 * results with `NoOutputGeneratedError` (the first step) or resolves them with the earlier steps' answer (a later
 * one); a model stream that fails rejects them with its error as it is, and ends the generation (ADR 0199).
 */
function failedStream(error: unknown): ReadableStream<StreamPart> {
  return new ReadableStream({ start: (controller) => controller.error(error) });
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
