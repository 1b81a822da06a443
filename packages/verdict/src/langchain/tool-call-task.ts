/**
 * Whether the LangGraph task that runs tool call `toolCallId` runs that call alone: `undefined` outside a LangGraph
 * task. `createAgent` (its default `version: 'v2'`) sends each call of a model turn to the tools node as a task of its
 * own, whose input carries the call (`lg_tool_call`), as a `ToolNode` sent one call does; `version: 'v1'`, and a graph
 * that hands a whole message to a `ToolNode`, run every call of the turn in one task. A task that pauses runs again
 * from its start when the run resumes: only a task of one call runs nothing but the paused call again.
 */
export function isOwnTask(configurable: unknown, toolCallId: string): boolean | undefined {
  const scratchpad = (configurable as { __pregel_scratchpad?: unknown } | undefined)?.__pregel_scratchpad;
  if (typeof scratchpad !== 'object' || scratchpad === null) return undefined;
  const input = (scratchpad as { currentTaskInput?: unknown }).currentTaskInput;
  const call = (input as { lg_tool_call?: unknown } | null | undefined)?.lg_tool_call;
  return (call as { id?: unknown } | null | undefined)?.id === toolCallId;
}
