import { Injectable } from '@nestjs/common';
import { ModelBudgetGate } from '../budgets/model-budget.gate.js';
import { ActionContextStore } from '../context/action-context.store.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { ModelCallBudget, type ModelCallBudgetOptions } from './model-call-budget.js';

/** Makes {@link ModelCallBudget}s wired to the module's `modelBudgets`, budget store and action context. */
@Injectable()
export class ModelBudgets {
  constructor(
    private readonly gate: ModelBudgetGate,
    private readonly contexts: ActionContextStore,
  ) {}

  /**
   * The model budgets of one agent: every agent's calls count against the same module budgets.
   *
   * @throws VerdictConfigurationError when the module has no `modelBudgets`.
   */
  forAgent(options: ModelCallBudgetOptions = {}): ModelCallBudget {
    if (!this.gate.configured)
      throw new VerdictConfigurationError(
        'ModelBudgets.forAgent: the module has no modelBudgets; pass `modelBudgets` and `budgets` to VerdictModule.forRoot.',
      );
    return new ModelCallBudget(this.gate, this.contexts, options);
  }
}
