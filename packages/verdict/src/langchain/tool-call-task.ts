/**
 * Whether the LangGraph task that runs tool call `toolCallId` runs that call alone: `undefined` outside a LangGraph
 * task. `createAgent` (its default `version: 'v2'`) sends each call of a model turn to the tools node as a task of its
 * own, whose input carries the call (`lg_tool_call`), as a `ToolNode` sent one call does; a task handed a whole
 * message (a `ToolNode` after `toolsCondition`) runs the message's calls, which is this call alone only when the
 * message has no other; `version: 'v1'` runs every call of the turn in one task. A task that pauses runs again from
 * its start when the run resumes: only a task of one call runs nothing but the paused call again.
 */
export function isOwnTask(configurable: unknown, toolCallId: string): boolean | undefined {
  const scratchpad = (configurable as { __pregel_scratchpad?: unknown } | undefined)?.__pregel_scratchpad;
  if (typeof scratchpad !== 'object' || scratchpad === null) return undefined;
  const input = (scratchpad as { currentTaskInput?: unknown }).currentTaskInput as
    { lg_tool_call?: unknown; messages?: unknown } | unknown[] | null | undefined;
  if (!Array.isArray(input) && input?.lg_tool_call !== undefined)
    return (input.lg_tool_call as { id?: unknown } | null)?.id === toolCallId;
  const messages = Array.isArray(input) ? input : input?.messages;
  const calls = Array.isArray(messages) ? (messages.at(-1) as { tool_calls?: unknown } | undefined)?.tool_calls : [];
  return Array.isArray(calls) && calls.length === 1 && (calls[0] as { id?: unknown } | null)?.id === toolCallId;
}
