/** What a LangChain chat model says of itself: its name and the most output it allows, when it declares them. */
export interface ModelFacts {
  readonly model: string | undefined;
  readonly maxOutputTokens: number | undefined;
}

/**
 * The model's name and maximum output as LangChain's tracing reads them (`getLsParams`: `ls_model_name`,
 * `ls_max_tokens`; `ChatOpenAI`'s `model` and `maxTokens`, `ChatAnthropic`'s alike). A model that answers neither
 * declares nothing.
 */
export function modelFactsOf(model: unknown): ModelFacts {
  const read = (model as { getLsParams?: (options: object) => Record<string, unknown> } | null)?.getLsParams;
  let params: Record<string, unknown> = {};
  if (typeof read === 'function') params = read.call(model, {}) ?? {};
  const name = params.ls_model_name;
  const max = params.ls_max_tokens;
  return {
    model: typeof name === 'string' && name.trim() !== '' ? name : undefined,
    // Declared, it is what the call reserves: anything but a non-negative safe integer is refused by the gate
    // (VerdictConfigurationError), as the AI SDK's and the Agents' own settings are. `-1` is how some models (Ollama's
    // `numPredict`) say "no limit": that declares no maximum, as an unset one does.
    maxOutputTokens: max === undefined || max === null || max === -1 ? undefined : (max as number),
  };
}
