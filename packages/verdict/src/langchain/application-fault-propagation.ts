import type { RunnableConfig } from '@langchain/core/runnables';
import { isGraphBubbleUp } from '@langchain/langgraph';
import { ApplicationFaultError } from '../errors/application-fault.error.js';

/**
 * Marks a tool call whose faults may propagate as they are, because something outside the ToolNode's
 * error handling (`applicationFaultMiddleware`) rethrows them from the run.
 */
export const FAULTS_PROPAGATE = Symbol('VerdictFaultsPropagate');

/**
 * What a Verdict tool throws for `error`. LangGraph's own signals (interrupts, commands), faults of a
 * call that was not a tool call, of an aborted run, or of a call `applicationFaultMiddleware` passes on
 * stay as they are; any other fault becomes an {@link ApplicationFaultError}, which fails the agent run
 * instead of reaching the model as an error message.
 */
export function faultForAgent(error: unknown, config: RunnableConfig | undefined, capability: string, tool: string): unknown {
  const toolCall = (config as { toolCall?: Record<PropertyKey, unknown> } | undefined)?.toolCall;
  if (isGraphBubbleUp(error as Error) || typeof toolCall !== 'object' || toolCall === null) return error;
  if (toolCall[FAULTS_PROPAGATE] === true || config?.signal?.aborted === true) return error;
  return new ApplicationFaultError(capability, tool, error);
}
