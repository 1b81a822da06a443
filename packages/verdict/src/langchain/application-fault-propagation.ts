import type { RunnableConfig } from '@langchain/core/runnables';
import { isGraphBubbleUp } from '@langchain/langgraph';
import { CallCeilingReachedError } from '../errors/call-ceiling-reached.error.js';
import { toolFault } from '../errors/tool-fault.js';

/** LangGraph's own signals (interrupts, commands) travel as exceptions: they are not faults. */
function isGraphSignal(error: unknown): boolean {
  return typeof error === 'object' && error !== null && isGraphBubbleUp(error as Error);
}

/**
 * What a Verdict tool throws for `error`, whatever was thrown (an `Error`, `null`, a string, any value).
 * LangGraph's own signals, and faults of a call that was not a tool call or of an aborted run, stay as
 * they are; any other fault becomes an {@link ApplicationFaultError}, which fails the agent run instead
 * of reaching the model as an error message, and is all that any middleware around the tool sees.
 */
export function faultForAgent(
  error: unknown,
  config: RunnableConfig | undefined,
  capability: string,
  tool: string,
): unknown {
  const toolCall = (config as { toolCall?: unknown } | undefined)?.toolCall;
  // A call ceiling ends the run as itself: a policy stop, not a fault of the application.
  if (error instanceof CallCeilingReachedError) return error;
  if (isGraphSignal(error) || typeof toolCall !== 'object' || toolCall === null) return error;
  if (config?.signal?.aborted === true) return error;
  return toolFault(capability, tool, error);
}
