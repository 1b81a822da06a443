import type { DataSource } from 'typeorm';
import type { CheckpointKey } from '@verdict/nestjs';
import type { AppendReply, AppendRequest, EvidenceWorkerInit } from './evidence-protocol.js';
import { workerOptions } from './gate-workers.js';
import type { WorkerKeeper } from './worker-keeper.js';
import { WorkerPool } from './worker-pool.js';

/** Compiled by `tsc -b`; the same relative path from `src/processes` and `dist/processes`. The pool refuses a stale build. */
const EVIDENCE_WORKER = new URL('../../dist/processes/evidence-worker.js', import.meta.url);

/** N OS processes, each with its own connection and its own sealing `TypeOrmEvidenceRecorder`. */
export interface EvidenceWorkers {
  readonly size: number;
  /** Every worker appends `count` records to `stream` at once (behind a start barrier); the ids, in worker order. */
  appendAll(stream: string, count: number): Promise<Array<readonly string[]>>;
  close(): Promise<void>;
}

/**
 * Forks `count` evidence workers on the database `dataSource` is connected to (SQLite: the same file, in
 * WAL mode, each worker waiting up to 30 s for the write lock).
 *
 * @example
 * const workers = await startEvidenceWorkers({ count: 8, dataSource, checkpointKey });
 * await workers.appendAll('tenant:abc', 25);
 */
export async function startEvidenceWorkers({
  count,
  dataSource,
  checkpointKey,
  keeper,
}: {
  count: number;
  dataSource: DataSource;
  checkpointKey?: CheckpointKey;
  /** Keeps the processes across engines: `close()` leaves them to the keeper for the next start (see {@link WorkerKeeper}). */
  keeper?: WorkerKeeper;
}): Promise<EvidenceWorkers> {
  if (dataSource.options.type === 'better-sqlite3') await dataSource.query('PRAGMA journal_mode = WAL');
  const pool = await WorkerPool.start<EvidenceWorkerInit, AppendRequest, AppendReply>(
    EVIDENCE_WORKER,
    count,
    {
      dataSource: workerOptions(dataSource.options),
      checkpointKey,
    },
    keeper,
  );
  return {
    size: pool.size,
    appendAll: async (stream, records) =>
      (await pool.broadcast((worker) => ({ stream, count: records, worker }))).map((reply) => reply.ids),
    close: () => pool.close(),
  };
}
