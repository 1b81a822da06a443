import type { DataSource } from 'typeorm';
import type {
  ContainmentWorkerInit,
  ContainmentWorkerReply,
  ContainmentWorkerRequest,
  PingReply,
  PingRequest,
  SwitchReply,
  SwitchRequest,
} from './containment-protocol.js';
import { workerOptions } from './gate-workers.js';
import type { WorkerKeeper } from './worker-keeper.js';
import { WorkerPool } from './worker-pool.js';

/** Compiled by `tsc -b`; the same relative path from `src/processes` and `dist/processes`. The pool refuses a stale build. */
const CONTAINMENT_WORKER = new URL('../../dist/processes/containment-worker.js', import.meta.url);

/** N OS processes, each running Verdict with its own connection to one database and a containment cache. */
export interface ContainmentWorkers {
  readonly size: number;
  /** Worker `index` proposes `notes.ping` as `actor` in `tenant`. */
  ping(index: number, request: Omit<PingRequest, 'kind'>): Promise<PingReply>;
  /** Worker `index` engages or releases a kill switch through its `ContainmentService`. */
  operate(index: number, request: SwitchRequest): Promise<SwitchReply>;
  close(): Promise<void>;
}

/**
 * Forks `count` containment workers (real OS processes) on the database `dataSource` (from
 * `openDataSource`, migrations already run) is connected to, each reusing its read of the engaged
 * switches for `cacheTtlMs`.
 *
 * @example
 * const workers = await startContainmentWorkers({ count: 4, dataSource, cacheTtlMs: 250 });
 * await workers.operate(0, { kind: 'engage', scope: 'capability', subject: 'notes.ping' });
 */
export async function startContainmentWorkers({
  count,
  dataSource,
  cacheTtlMs,
  keeper,
}: {
  count: number;
  dataSource: DataSource;
  cacheTtlMs: number;
  /** Keeps the processes across engines: `close()` leaves them to the keeper for the next start (see {@link WorkerKeeper}). */
  keeper?: WorkerKeeper;
}): Promise<ContainmentWorkers> {
  if (dataSource.options.type === 'better-sqlite3') await dataSource.query('PRAGMA journal_mode = WAL');
  const pool = await WorkerPool.start<ContainmentWorkerInit, ContainmentWorkerRequest, ContainmentWorkerReply>(
    CONTAINMENT_WORKER,
    count,
    { dataSource: workerOptions(dataSource.options), cacheTtlMs },
    keeper,
  );
  return {
    size: pool.size,
    ping: (index, request) => pool.send(index, { kind: 'ping', ...request }) as Promise<PingReply>,
    operate: (index, request) => pool.send(index, request) as Promise<SwitchReply>,
    close: () => pool.close(),
  };
}
