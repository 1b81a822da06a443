import { ApplicationFaultError } from './application-fault.error.js';
import { CallCeilingReachedError } from './call-ceiling-reached.error.js';

/**
 * What a Verdict tool of any runtime throws for a fault `error` of its call: a call ceiling as itself (a policy stop
 * of the conversation, reached by a sub-agent the executor ran, never an application fault); anything else as an
 * {@link ApplicationFaultError}, which fails the run instead of reaching the model.
 */
export function toolFault(capability: string, tool: string, error: unknown): Error {
  if (error instanceof CallCeilingReachedError) return error;
  return new ApplicationFaultError(capability, tool, error);
}
