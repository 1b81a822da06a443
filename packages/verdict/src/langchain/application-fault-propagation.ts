import type { RunnableConfig } from '@langchain/core/runnables';
import { isGraphBubbleUp } from '@langchain/langgraph';
import { policyStopOf } from '../errors/policy-stop.js';
import { toolFault } from '../errors/tool-fault.js';

/** LangGraph's own signals (interrupts, commands) travel as exceptions: they are not faults. */
function isGraphSignal(error: unknown): boolean {
  return typeof error === 'object' && error !== null && isGraphBubbleUp(error as Error);
}

/**
 * What a Verdict tool throws for `error`, whatever was thrown (an `Error`, `null`, a string, any value).
 * A policy stop — a call ceiling or a model budget without room, which a sub-agent in the executor met — is
 * thrown as itself, found in `error` or its `cause` chain (LangChain hands a sub-agent's budget stop over as its
 * `MiddlewareError`'s `cause`; ADR 0203). LangGraph's own signals, and faults of a call that was not a tool call
 * or of an aborted run, stay as they are; any other fault becomes an {@link ApplicationFaultError}, which fails
 * the agent run instead of reaching the model as an error message, and is all that any middleware around the
 * tool sees.
 */
export function faultForAgent(
  error: unknown,
  config: RunnableConfig | undefined,
  capability: string,
  tool: string,
): unknown {
  const toolCall = (config as { toolCall?: unknown } | undefined)?.toolCall;
  // A call ceiling or a model budget ends the run as itself: a policy stop, not a fault of the application.
  const stop = policyStopOf(error);
  if (stop !== undefined) return stop;
  if (isGraphSignal(error) || typeof toolCall !== 'object' || toolCall === null) return error;
  if (config?.signal?.aborted === true) return error;
  return toolFault(capability, tool, error);
}
