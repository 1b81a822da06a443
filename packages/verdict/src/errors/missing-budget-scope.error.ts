import { VerdictError } from './verdict.error.js';

/**
 * A capability with a spend `budget` ran without a key for the budget's scope: `per: 'conversation'` in an action
 * context without `metadata.conversationId`, `per: 'tenant'` without a tenant, `per: 'actor'` with an actor whose key
 * is missing. A wiring fault, never a decision: nothing is reserved.
 */
export class MissingBudgetScopeError extends VerdictError {
  readonly code = 'VERDICT_MISSING_BUDGET_SCOPE';

  constructor(capability: string, per: string) {
    super(
      `Capability "${capability}" has a spend budget per ${per}, but this call has no ${per} key` +
        (per === 'conversation'
          ? ': set metadata.conversationId in resolveContext, or budget per actor or tenant.'
          : '.'),
      { capability, scope: per },
    );
  }
}
