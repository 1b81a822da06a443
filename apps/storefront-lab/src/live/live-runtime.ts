/** The agent runtimes the live lab can run a scenario through, each with Verdict's adapter for it. */
export const LiveRuntime = {
  /** LangChain `createAgent` with `VerdictTools.bound` and the configured LangChain chat model. */
  LangChain: 'langchain',
  /** Vercel AI SDK `generateText` with `VerdictAiSdkTools.bound` and the `@ai-sdk/openai` chat model. */
  AiSdk: 'ai-sdk',
  /** OpenAI Agents `Runner` with `VerdictAgentsTools.bound` and the SDK's OpenAI chat-completions model. */
  OpenAIAgents: 'openai-agents',
} as const;

export type LiveRuntime = (typeof LiveRuntime)[keyof typeof LiveRuntime];

/** Every runtime, in the order the page offers them. */
export const LIVE_RUNTIMES: readonly LiveRuntime[] = Object.values(LiveRuntime);
