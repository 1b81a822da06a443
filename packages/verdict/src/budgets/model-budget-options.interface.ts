import type { ActionContextOptions } from '../context/action-context-options.interface.js';
import type { ClockOptions } from '../shared/clock-options.interface.js';
import type { BudgetOptions } from './budget-options.interface.js';
import type { ModelCallBudgets } from './model-budget.js';

/** What model budgets read of the module options: their own, the budget store, the actor key and the clock. */
export interface ModelBudgetOptions extends BudgetOptions, ClockOptions, Pick<ActionContextOptions, 'actorKey'> {
  /**
   * Token and cost budgets on model calls; needs `budgets` (checked at boot). Default: none. A key it, a budget or a
   * price does not have is a boot error (`VerdictConfigurationError`: a misspelt `maxOutputToken` is not left out).
   */
  readonly modelBudgets?: ModelCallBudgets;
}

/** Injects the module's {@link ModelBudgetOptions} (provided by the core module). */
export const MODEL_BUDGET_OPTIONS = Symbol('VerdictModelBudgetOptions');
