import { CallCeilingReachedError } from './call-ceiling-reached.error.js';
import { ModelBudgetExceededError } from './model-budget-exceeded.error.js';

/**
 * A policy stop of an agent run: Verdict's policy ended the run, no application fault did (ADR 0197, ADR 0203).
 * A call ceiling reached (`CallCeilingReachedError`) or a model budget without room (`ModelBudgetExceededError`).
 */
export type PolicyStop = CallCeilingReachedError | ModelBudgetExceededError;

/** How many `cause` links {@link policyStopOf} follows: wrappers nest a few deep, a longer chain is a fault's. */
const MAX_CAUSE_DEPTH = 8;

/**
 * The policy stop that `error` is, or that its `cause` chain leads to (at most 8 links): a wrapper — LangChain's
 * `MiddlewareError`, a Verdict tool's `ApplicationFaultError`, an application's error thrown with the stop as its
 * `cause` — does not turn the stop into a fault. `undefined` for anything else, and when walking the chain throws (a
 * `cause` getter, a proxy's trap): a chain that cannot be read is a fault's. Verdict's tools end an outer agent run
 * with the stop this finds, and the `execute_tool` span reads it as `verdict.stopped_at` (ADR 0197, ADR 0203).
 *
 * One catch for a stop at the top (LangChain rejects `agent.invoke` with a `MiddlewareError` whose `cause` is the
 * stop) and for a sub-agent's (the outer run rejects with the stop itself).
 *
 * @example
 * try { await agent.invoke(input); } catch (error) {
 *   if (policyStopOf(error) instanceof ModelBudgetExceededError) return 'Your assistant budget is used up.';
 *   throw error;
 * }
 */
export function policyStopOf(error: unknown): PolicyStop | undefined {
  try {
    let link = error;
    for (let depth = 0; depth <= MAX_CAUSE_DEPTH && link instanceof Error; depth++) {
      if (link instanceof CallCeilingReachedError || link instanceof ModelBudgetExceededError) return link;
      link = link.cause;
    }
  } catch {
    // Not a stop the chain could be read to: an application fault.
  }
  return undefined;
}
