import { RunStoppingError } from './run-stopping.error.js';

/**
 * Thrown by a model-budget middleware (`ModelBudgets.forAgent()`) — or by `QuarantineService.extract` for the
 * quarantined model — before the model is called, when the call's estimate does not fit one of the module's
 * `modelBudgets` in its window: the agent run ends there (`agent.invoke` rejects with it) and nothing is spent.
 * `ModelBudgetExceeded` is emitted with the facts. Like `CallCeilingReachedError`, it refuses to become text
 * (`RunStoppingError`): no error-to-message layer hands it back to the model. LangChain rejects `agent.invoke` with
 * its `MiddlewareError`, this error its `cause`; a sub-agent's stop ends the outer run as this error itself, never as
 * an `ApplicationFaultError` (ADR 0203). `policyStopOf` finds it in either.
 *
 * @example
 * try { await agent.invoke(input); } catch (error) {
 *   if (policyStopOf(error) instanceof ModelBudgetExceededError) return { answer: 'Your daily budget is used up.' };
 *   throw error;
 * }
 */
export class ModelBudgetExceededError extends RunStoppingError {
  readonly code = 'VERDICT_MODEL_BUDGET_EXCEEDED';

  constructor(
    /** The budget that had no room: its `name`. */
    readonly budget: string,
    readonly measure: string,
    readonly per: string,
    /** When the budget's window ends and it has room again. */
    readonly resetAt: Date,
  ) {
    super(
      `The model budget "${budget}" (${measure} per ${per}) has no room for this model call: the agent run stops before the model is called. It has room again from ${resetAt.toISOString()}.`,
      { budget, measure, scope: per },
    );
  }
}
