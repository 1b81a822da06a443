import type { DataSource, DataSourceOptions } from 'typeorm';
import type { ApprovalReceipt } from '@verdict/nestjs';
import type {
  AdmitReply,
  BatchReply,
  BatchRequest,
  AdmitRequest,
  ConsumeReply,
  ConsumeRequest,
  GateReply,
  GateRequest,
  GateWorkerInit,
  ReceiptConsumeReply,
  ReceiptConsumeRequest,
  ReceiptDecisionReply,
  ReceiptDecisionRequest,
  ReceiptBatchDecisionReply,
  ReceiptBatchDecisionRequest,
  ReceiptIssueReply,
  ReceiptIssueRequest,
  ReserveBudgetReply,
  ReserveBudgetRequest,
  TrajectoryAdvanceReply,
  TrajectoryAdvanceRequest,
} from './gate-protocol.js';
import type { WorkerKeeper } from './worker-keeper.js';
import { WorkerPool } from './worker-pool.js';

/** Compiled by `tsc -b` (npm's `pretest`); the same relative path from `src/processes` and `dist/processes`. The pool refuses a stale build. */
const GATE_WORKER = new URL('../../dist/processes/gate-worker.js', import.meta.url);

/** How long a SQLite writer waits for another process's write lock before SQLITE_BUSY (better-sqlite3's `timeout`). */
const SQLITE_BUSY_TIMEOUT_MS = 30_000;

/** N OS processes, each with its own connection to one database, calling Verdict's TypeORM gates. */
export interface GateWorkers {
  readonly size: number;
  /** Every worker admits the same request at once, each with its own candidate id; replies in worker order. */
  admitAll(request: Omit<AdmitRequest, 'gate'>): Promise<AdmitReply[]>;
  /** Every worker consumes `times` units of the same bucket at once; replies in worker order. */
  consumeAll(request: Omit<ConsumeRequest, 'gate'>): Promise<ConsumeReply[]>;
  /** Every worker issues the receipt `request(index)` at once; the store's answers in worker order (`null`: a cap refused it). */
  issueReceiptAll(
    request: (index: number) => Omit<ReceiptIssueRequest, 'gate'>,
  ): Promise<Array<ApprovalReceipt | null>>;
  /** Every worker makes `times` reservations in the same budget window at once; replies in worker order. */
  reserveBudgetAll(request: Omit<ReserveBudgetRequest, 'gate'>): Promise<ReserveBudgetReply[]>;
  /** Every worker consumes the same approval receipt at once; replies in worker order. */
  consumeReceiptAll(request: Omit<ReceiptConsumeRequest, 'gate'>): Promise<ReceiptConsumeReply[]>;
  /**
   * Every worker decides the same pending receipt at once: worker `index` approves or rejects as
   * `decision(index)` says, as approver `approver:<index>`; replies in worker order.
   */
  decideReceiptAll(
    request: Omit<ReceiptDecisionRequest, 'gate' | 'decision' | 'by'>,
    decision: (index: number) => ReceiptDecisionRequest['decision'],
  ): Promise<ReceiptDecisionReply[]>;
  /** Every worker decides the same approval batch at once, as `request(index)` says; replies in worker order. */
  decideReceiptBatchAll(
    request: (index: number) => Omit<ReceiptBatchDecisionRequest, 'gate'>,
  ): Promise<ReceiptBatchDecisionReply[]>;
  /** Every worker advances the same trajectory `times` times at once; replies in worker order. */
  advanceTrajectoryAll(request: Omit<TrajectoryAdvanceRequest, 'gate'>): Promise<TrajectoryAdvanceReply[]>;
  /**
   * Every worker makes the gate calls `requests(index)` one after another, all workers starting at once
   * (for a soak: the same fresh key at the same position in every worker's list, so each key is contended
   * by all of them); replies in worker order, one outcome per call.
   */
  batchAll(requests: (index: number) => BatchRequest['requests']): Promise<BatchReply[]>;
  /** Kills worker `index` with SIGKILL. */
  kill(index: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Forks `count` gate workers (real OS processes, reused across rounds) on the database `dataSource`
 * (from `openDataSource`, migrations already run) is connected to: the same SQLite file, PostgreSQL
 * schema or MariaDB database. For SQLite the file is switched to WAL first and each worker waits up to
 * 30 s for the write lock (`timeout`), so concurrent writers queue instead of failing with SQLITE_BUSY.
 *
 * @example
 * const workers = await startGateWorkers({ count: 8, dataSource });
 * const replies = await workers.admitAll({ capability, policy, bindingFingerprint, now });
 * expect(replies.filter((reply) => reply.admitted)).toHaveLength(1);
 */
export async function startGateWorkers({
  count,
  dataSource,
  keeper,
}: {
  count: number;
  dataSource: DataSource;
  /** Keeps the processes across engines: `close()` leaves them to the keeper for the next start (see {@link WorkerKeeper}). */
  keeper?: WorkerKeeper;
}): Promise<GateWorkers> {
  if (dataSource.options.type === 'better-sqlite3') await dataSource.query('PRAGMA journal_mode = WAL');
  const pool = await WorkerPool.start<GateWorkerInit, GateRequest | BatchRequest, GateReply | BatchReply>(
    GATE_WORKER,
    count,
    { dataSource: workerOptions(dataSource.options) },
    keeper,
  );
  return {
    size: pool.size,
    admitAll: (request) => pool.broadcast({ gate: 'admit', ...request }) as Promise<AdmitReply[]>,
    consumeAll: (request) => pool.broadcast({ gate: 'consume', ...request }) as Promise<ConsumeReply[]>,
    issueReceiptAll: async (request) =>
      ((await pool.broadcast((index) => ({ gate: 'issueReceipt', ...request(index) }))) as ReceiptIssueReply[]).map(
        (reply) => reply.receipt,
      ),
    reserveBudgetAll: (request) =>
      pool.broadcast({ gate: 'reserveBudget', ...request }) as Promise<ReserveBudgetReply[]>,
    consumeReceiptAll: (request) =>
      pool.broadcast({ gate: 'consumeReceipt', ...request }) as Promise<ReceiptConsumeReply[]>,
    decideReceiptAll: (request, decision) =>
      pool.broadcast((index) => ({
        gate: 'decideReceipt',
        ...request,
        decision: decision(index),
        by: `approver:${index}`,
      })) as Promise<ReceiptDecisionReply[]>,
    decideReceiptBatchAll: (request) =>
      pool.broadcast((index) => ({ gate: 'decideReceiptBatch', ...request(index) })) as Promise<
        ReceiptBatchDecisionReply[]
      >,
    advanceTrajectoryAll: (request) =>
      pool.broadcast({ gate: 'advanceTrajectory', ...request }) as Promise<TrajectoryAdvanceReply[]>,
    batchAll: (requests) =>
      pool.broadcast((index) => ({ gate: 'batch', requests: requests(index) })) as Promise<BatchReply[]>,
    kill: async (index) => {
      await pool.kill(index);
    },
    close: () => pool.close(),
  };
}

/** The serializable part of the parent's options: connection and isolation, no classes (for any worker pool). */
export function workerOptions(options: DataSourceOptions): DataSourceOptions {
  switch (options.type) {
    case 'better-sqlite3':
      return { type: options.type, database: options.database, enableWAL: true, timeout: SQLITE_BUSY_TIMEOUT_MS };
    case 'postgres':
      return { type: options.type, url: options.url, schema: options.schema, extra: options.extra };
    case 'mysql':
    case 'mariadb':
      return { type: options.type, url: options.url, timezone: options.timezone, dateStrings: options.dateStrings };
    default:
      throw new Error(
        `Gate workers support better-sqlite3, postgres and mysql/mariadb DataSources, not "${options.type}".`,
      );
  }
}
