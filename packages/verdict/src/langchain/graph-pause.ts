import { isGraphInterrupt } from '@langchain/langgraph';

/**
 * Whether `error` is LangGraph pausing the run for a human: an interrupt, raised by the call itself or by a sub-agent
 * its executor runs. It is not a failure: the node that raised it runs again from its start when the run resumes
 * (ADR 0177).
 */
export function isGraphPause(error: unknown): boolean {
  return typeof error === 'object' && error !== null && isGraphInterrupt(error);
}
