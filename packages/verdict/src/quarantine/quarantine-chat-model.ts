/** One message of the quarantined model's prompt, as a LangChain chat model accepts it: `[role, text]`. */
export type QuarantinePromptMessage = ['system' | 'human', string];

/**
 * The quarantined model: any LangChain chat model (`ChatOpenAI`, `ChatAnthropic`, a cheaper one in practice)
 * satisfies it. Verdict only ever calls `invoke` with a system and a human message, and never binds tools: an
 * answer that asks for a tool call is refused (`QuarantineExtractionError`, reason `tool_call`), never run.
 * Under model budgets its name and maximum output are read as a LangChain chat model's (`getLsParams()`:
 * `ls_model_name`, `ls_max_tokens`), and its usage from the answer's `usage_metadata`: an object of your own
 * answers them the same way.
 *
 * @example const quarantine = { model: new ChatOpenAI({ model: 'gpt-4.1-mini' }) };
 */
export interface QuarantineChatModel {
  invoke(input: QuarantinePromptMessage[]): Promise<{ readonly content: unknown; readonly tool_calls?: unknown }>;
}
