import type { ProvenanceToolCall } from '../provenance/provenance-scope.js';

/**
 * The agent's tool call that `configurable` (a LangGraph task's) and `id` describe: the task is known by its
 * scratchpad, the one object LangGraph makes per task that every copy of the config still points to (LangChain
 * copies `configurable` itself on its way to the tool). Outside a LangGraph task the call matches no window.
 */
export function toolCallOf(configurable: unknown, id: string): ProvenanceToolCall {
  const scratchpad = (configurable as { __pregel_scratchpad?: unknown } | undefined)?.__pregel_scratchpad;
  return { run: typeof scratchpad === 'object' && scratchpad !== null ? scratchpad : undefined, id };
}
