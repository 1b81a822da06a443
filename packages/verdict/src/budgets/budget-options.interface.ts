import type { BudgetStore } from './budget-store.interface.js';

/** What spend budgets read of the module options. */
export interface BudgetOptions {
  /**
   * Where spend-budget windows live. Required when any capability declares a `budget` (checked at boot). A value
   * given is checked at every boot: `null`, `{}` or a store missing a method is a `VerdictConfigurationError`.
   */
  readonly budgets?: BudgetStore;
}

/** Injects the module's {@link BudgetOptions} (provided by the core module). */
export const BUDGET_OPTIONS = Symbol('VerdictBudgetOptions');
