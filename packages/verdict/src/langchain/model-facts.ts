/** What a LangChain chat model says of itself: its name and the most output it allows, when it declares them. */
export interface ModelFacts {
  readonly model: string | undefined;
  readonly maxOutputTokens: number | undefined;
}

type Params = Record<string, unknown>;

/**
 * The model's name and maximum output. The name is what LangChain's tracing reads (`getLsParams`: `ls_model_name`;
 * `ChatOpenAI`'s and `ChatAnthropic`'s `model`). The maximum is `ls_max_tokens` when the model reports it, else the
 * one its request would carry (`invocationParams()`: `max_tokens`, `max_completion_tokens`, `max_output_tokens`):
 * `ChatOpenAI` reports its `maxTokens` as `ls_max_tokens` only where it sends `max_tokens`, not to a reasoning model
 * (`max_completion_tokens`) nor on the Responses API (`max_output_tokens`). A model that answers none declares
 * nothing.
 */
export function modelFactsOf(model: unknown): ModelFacts {
  const params = paramsOf(model, 'getLsParams');
  const name = params.ls_model_name;
  let max = params.ls_max_tokens;
  if (declaresNone(max)) {
    const request = paramsOf(model, 'invocationParams');
    max = request.max_tokens ?? request.max_completion_tokens ?? request.max_output_tokens;
  }
  return {
    model: typeof name === 'string' && name.trim() !== '' ? name : undefined,
    // Declared, it is what the call reserves: anything but a non-negative safe integer is refused by the gate
    // (VerdictConfigurationError), as the AI SDK's and the Agents' own settings are. `-1` is how some models (Ollama's
    // `numPredict`, `ChatOpenAI`'s `maxTokens`) say "no limit": that declares no maximum, as an unset one does.
    maxOutputTokens: declaresNone(max) ? undefined : (max as number),
  };
}

/** `undefined`, `null` and `-1` declare no maximum. */
const declaresNone = (max: unknown): boolean => max === undefined || max === null || max === -1;

/**
 * What the model's `getLsParams({})` or `invocationParams({})` answers, or nothing when it has no such method. A model
 * whose `invocationParams` cannot answer without call options (it throws) declares nothing there, as before it was read.
 */
function paramsOf(model: unknown, method: 'getLsParams' | 'invocationParams'): Params {
  const read = (model as Partial<Record<typeof method, (options: object) => Params | undefined>> | null)?.[method];
  if (typeof read !== 'function') return {};
  if (method === 'getLsParams') return read.call(model, {}) ?? {};
  try {
    return read.call(model, {}) ?? {};
  } catch {
    return {};
  }
}
