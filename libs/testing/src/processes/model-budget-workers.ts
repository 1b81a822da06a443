import type { DataSource } from 'typeorm';
import type { ModelBudgetRunReply, ModelBudgetRunRequest, ModelBudgetWorkerInit } from './model-budget-protocol.js';
import { workerOptions } from './gate-workers.js';
import type { WorkerKeeper } from './worker-keeper.js';
import { WorkerPool } from './worker-pool.js';

/** Compiled by `tsc -b`; the same relative path from `src/processes` and `dist/processes`. The pool refuses a stale build. */
const MODEL_BUDGET_WORKER = new URL('../../dist/processes/model-budget-worker.js', import.meta.url);

/** N OS processes, each with its own connection to one database, running agents under model budgets. */
export interface ModelBudgetWorkers {
  readonly size: number;
  /** Every worker makes the same agent runs at once; replies in worker order. */
  runAll(request: ModelBudgetRunRequest): Promise<ModelBudgetRunReply[]>;
  close(): Promise<void>;
}

/**
 * Forks `count` model-budget workers (real OS processes, reused across rounds) on the database `dataSource` (from
 * `openDataSource`, migrations already run) is connected to.
 *
 * @example
 * const workers = await startModelBudgetWorkers({ count: 8, dataSource });
 * const replies = await workers.runAll({
 *   budgets, now: new Date(), actor: 'alice', runs: 3, inputTokens: 60, maxTokens: 40, usage,
 * });
 */
export async function startModelBudgetWorkers({
  count,
  dataSource,
  keeper,
}: {
  count: number;
  dataSource: DataSource;
  /** Keeps the processes across engines: `close()` leaves them to the keeper for the next start (see {@link WorkerKeeper}). */
  keeper?: WorkerKeeper;
}): Promise<ModelBudgetWorkers> {
  if (dataSource.options.type === 'better-sqlite3') await dataSource.query('PRAGMA journal_mode = WAL');
  const pool = await WorkerPool.start<ModelBudgetWorkerInit, ModelBudgetRunRequest, ModelBudgetRunReply>(
    MODEL_BUDGET_WORKER,
    count,
    { dataSource: workerOptions(dataSource.options) },
    keeper,
  );
  return {
    size: pool.size,
    runAll: (request) => pool.broadcast(request),
    close: () => pool.close(),
  };
}
