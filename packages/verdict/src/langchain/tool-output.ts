import type { RunnableConfig } from '@langchain/core/runnables';

/** The tool-call id LangChain attaches to the config when a tool is invoked with a ToolCall. */
export function toolCallIdOf(config: RunnableConfig | undefined): string | undefined {
  const id = (config as { toolCall?: { id?: unknown } } | undefined)?.toolCall?.id;
  return typeof id === 'string' ? id : undefined;
}
