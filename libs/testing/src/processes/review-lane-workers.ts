import type { DataSource } from 'typeorm';
import type { ReviewLaneReply, ReviewLaneRequest, ReviewLaneWorkerInit } from './review-lane-protocol.js';
import { workerOptions } from './gate-workers.js';
import type { WorkerKeeper } from './worker-keeper.js';
import { WorkerPool } from './worker-pool.js';

/** Compiled by `tsc -b`; the same relative path from `src/processes` and `dist/processes`. */
const REVIEW_LANE_WORKER = new URL('../../dist/processes/review-lane-worker.js', import.meta.url);

/**
 * Forks `count` review-lane workers (real OS processes, each a whole Verdict application with its own
 * connection to the database `dataSource` is connected to, and BullMQ on `redis` when given). For SQLite
 * the file is switched to WAL first, as for gate workers.
 *
 * @example
 * const pool = await startReviewLaneWorkers({ count: 8, dataSource, ledgerTable, redis: null, blockExecutor: false });
 * const outcomes = await pool.broadcast((index) => ({ kind: 'decide', itemId, verdict: index % 2 ? 'reject' : 'approve', reviewerId: `staff:${index}` }));
 */
export async function startReviewLaneWorkers({
  count,
  dataSource,
  keeper,
  ...init
}: Omit<ReviewLaneWorkerInit, 'dataSource'> & {
  readonly count: number;
  readonly dataSource: DataSource;
  /** Keeps the processes across engines: `close()` leaves them to the keeper for the next start (see {@link WorkerKeeper}). */
  readonly keeper?: WorkerKeeper;
}): Promise<WorkerPool<ReviewLaneRequest, ReviewLaneReply>> {
  if (dataSource.options.type === 'better-sqlite3') await dataSource.query('PRAGMA journal_mode = WAL');
  return WorkerPool.start<ReviewLaneWorkerInit, ReviewLaneRequest, ReviewLaneReply>(
    REVIEW_LANE_WORKER,
    count,
    {
      ...init,
      dataSource: workerOptions(dataSource.options),
    },
    keeper,
  );
}
