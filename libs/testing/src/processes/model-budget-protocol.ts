import type { DataSourceOptions } from 'typeorm';
import type { ModelBudget } from '@verdict/nestjs';

/** What a model-budget worker opens: serializable DataSource options; the worker adds Verdict's entities itself. */
export interface ModelBudgetWorkerInit {
  readonly dataSource: DataSourceOptions;
}

/**
 * `runs` agent runs, one after another, each a real `createAgent` agent whose scripted model answers once and
 * reports `usage`, under the model budgets `budgets` in the action context of `actor` (tenant `acme`). Every call
 * is estimated at `inputTokens` plus the model's `maxTokens`. Every process reads its budget windows at `now`, so a
 * round cannot straddle a window boundary of the wall clock.
 */
export interface ModelBudgetRunRequest {
  readonly budgets: readonly ModelBudget[];
  readonly now: Date;
  readonly actor: string;
  readonly runs: number;
  readonly inputTokens: number;
  readonly maxTokens: number;
  readonly usage: { readonly input: number; readonly output: number };
}

/** How each run ended: `completed`, `stopped` (`ModelBudgetExceededError`) or another error's name. */
export interface ModelBudgetRunReply {
  readonly outcomes: readonly string[];
}
