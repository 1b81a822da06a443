import { ApplicationFaultError } from './application-fault.error.js';
import { policyStopOf } from './policy-stop.js';

/**
 * What a Verdict tool of any runtime throws for a fault `error` of its call: a policy stop of the agent run — a call
 * ceiling or a model budget without room, reached by a sub-agent the executor ran — as itself, the stop found in
 * `error` or its `cause` chain ({@link policyStopOf}: LangChain hands a sub-agent's budget stop over as its
 * `MiddlewareError`'s `cause`), never as an application fault (ADR 0203); anything else, a chain that cannot be read
 * included, as an {@link ApplicationFaultError}, which fails the run instead of reaching the model.
 */
export function toolFault(capability: string, tool: string, error: unknown): Error {
  return policyStopOf(error) ?? new ApplicationFaultError(capability, tool, error);
}
