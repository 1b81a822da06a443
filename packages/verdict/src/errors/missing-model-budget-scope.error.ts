import { VerdictError } from './verdict.error.js';

/**
 * A model call ran without a key for a model budget's scope: `per: 'conversation'` in an action context without
 * `metadata.conversationId`, `per: 'tenant'` without a tenant, `per: 'actor'` with an actor whose key is missing. A
 * wiring fault, never a decision: nothing is reserved and the model is not called.
 */
export class MissingModelBudgetScopeError extends VerdictError {
  readonly code = 'VERDICT_MISSING_MODEL_BUDGET_SCOPE';

  constructor(budget: string, per: string) {
    super(
      `The model budget "${budget}" counts per ${per}, but this model call's action context has no ${per} key` +
        (per === 'conversation' ? ': set metadata.conversationId in the context the agent runs in.' : '.'),
      { budget, scope: per },
    );
  }
}
