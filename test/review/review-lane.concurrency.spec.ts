import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Job, Queue, QueueEvents } from 'bullmq';
import type { DataSource } from 'typeorm';
import { TypeOrmReviewItemStore, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { VERDICT_DEFERRED_QUEUE } from '@verdict/nestjs/bullmq';
import {
  type DatabaseEngine,
  type DecideReply,
  type ProposeReply,
  type ReportReply,
  databaseEngines,
  dropDataSource,
  openDataSource,
  startReviewLaneWorkers,
  testRedisUrl,
  uniqueRedisPrefix,
  WorkerKeeper,
} from '@verdict/testing-kit';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };
/**
 * Processes racing one approve/reject decision, and rounds of it. Every engine runs every race, so each is
 * kept as small as still proves its claim: 8 processes deciding at once, 8 times.
 */
const DECIDERS = 8;
const DECISION_ROUNDS = 8;
/** BullMQ worker processes racing on duplicate jobs (the deciders' processes), approved items, and jobs per item. */
const WORKERS = DECIDERS;
const ITEMS = 4;
const JOBS_PER_ITEM = 8;
/** How long a killed worker's job stays locked before another worker's stalled check takes it back. */
const LOCK_MS = 1500;

async function openWithLedger(engine: DatabaseEngine): Promise<{ dataSource: DataSource; ledgerTable: string }> {
  const dataSource = await openDataSource(engine, SCHEMA);
  const ledgerTable = `review_ledger_${randomBytes(4).toString('hex')}`;
  await dataSource.query(`CREATE TABLE ${ledgerTable} (claim_id varchar(100) NOT NULL, amount integer NOT NULL)`);
  return { dataSource, ledgerTable };
}

async function ledgerOf(dataSource: DataSource, table: string): Promise<Array<{ amount: number }>> {
  const rows: Array<{ amount: number | string }> = await dataSource.query(
    `SELECT amount FROM ${table} ORDER BY amount`,
  );
  return rows.map((row) => ({ amount: Number(row.amount) }));
}

const redis = testRedisUrl();

/** A BullMQ queue of its own key prefix, as the test sees it; `null` without Redis. */
async function bullmq() {
  if (redis === undefined) return null;
  const prefix = uniqueRedisPrefix();
  const connection = { url: redis };
  const queue = new Queue(VERDICT_DEFERRED_QUEUE, { connection, prefix });
  // One waiter per job of the race (`Job.waitUntilFinished`), more than Node's default warning threshold.
  queue.setMaxListeners(ITEMS * JOBS_PER_ITEM + 10);
  const events = new QueueEvents(VERDICT_DEFERRED_QUEUE, { connection, prefix });
  return {
    redis: { url: redis, prefix, lockDurationMs: LOCK_MS },
    queue,
    /** The return value of job `id` once it finished, however many deliveries it took. */
    finished: async (id: string) => (await Job.fromId(queue, id))!.waitUntilFinished(events),
    close: async () => {
      await events.close();
      await queue.obliterate({ force: true });
      await queue.close();
    },
  };
}

const withRedis = redis === undefined ? it.skip : it;

/** The worker processes, started once and given each engine's database in turn. */
const keeper = new WorkerKeeper();
afterAll(() => keeper.close());

for (const engine of databaseEngines()) {
  describe(`The review lane across OS processes [${engine.name}]`, () => {
    let dataSource: DataSource;
    let ledgerTable: string;
    /** The queue the shared processes use (BullMQ when Redis is configured). */
    let lane: Awaited<ReturnType<typeof bullmq>>;
    /** One pool of processes per engine: the deciders of the decision race, then the workers of the duplicate race. */
    let pool: Awaited<ReturnType<typeof startReviewLaneWorkers>>;
    beforeAll(async () => {
      ({ dataSource, ledgerTable } = await openWithLedger(engine));
      lane = await bullmq();
      pool = await startReviewLaneWorkers({
        keeper,
        count: DECIDERS,
        dataSource,
        ledgerTable,
        redis: lane?.redis ?? null,
        blockExecutor: false,
      });
    });
    afterAll(async () => {
      await pool?.close();
      await lane?.close();
      await dropDataSource(dataSource);
    });

    it(`applies exactly one of ${DECIDERS / 2} approvals and ${DECIDERS / 2} rejections in each of ${DECISION_ROUNDS} rounds`, async () => {
      const store = new TypeOrmReviewItemStore(dataSource);
      const applied: number[] = [];
      const violations: string[] = [];
      const wins = { approved: 0, rejected: 0 };
      const started = performance.now();
      for (let round = 0; round < DECISION_ROUNDS; round++) {
        const { itemId } = (await pool.send(0, {
          kind: 'propose',
          toolCallId: `call_${round}`,
          amount: round + 1,
        })) as ProposeReply;
        const replies = (await pool.broadcast((index) => ({
          kind: 'decide',
          itemId,
          verdict: index % 2 === 0 ? 'approve' : 'reject',
          reviewerId: `staff:${index}`,
        }))) as DecideReply[];
        const winners = replies.filter((reply) => reply.outcome === 'approved' || reply.outcome === 'rejected');
        applied.push(winners.length);
        const losers = replies.filter((reply) => reply.outcome !== 'approved' && reply.outcome !== 'rejected');
        if (losers.some((reply) => reply.outcome !== 'invalid_state'))
          violations.push(`round ${round}: ${JSON.stringify(replies)}`);
        const stored = await store.find(itemId);
        if (winners.length === 1) {
          wins[winners[0]!.outcome as 'approved' | 'rejected']++;
          if (stored?.status !== winners[0]!.outcome) violations.push(`round ${round}: the row says ${stored?.status}`);
        }
      }
      console.info(
        `[${engine.name}] review decisions: ${DECIDERS} processes × ${DECISION_ROUNDS} rounds in ${((performance.now() - started) / 1000).toFixed(1)} s; ` +
          `${applied.filter((count) => count === 1).length} rounds with one terminal state; ${wins.approved} approvals and ${wins.rejected} rejections won`,
      );
      expect(applied.filter((count) => count !== 1)).toEqual([]);
      expect(violations).toEqual([]);
    });

    withRedis(
      'a worker killed with SIGKILL mid-executor leaves the claim claimed; the retried job never executes again',
      async () => {
        // A queue of its own: the shared pool's queue holds the decision race's approved items.
        const lane = (await bullmq())!;
        const doomed = await startReviewLaneWorkers({
          keeper,
          count: 1,
          dataSource,
          ledgerTable,
          redis: lane.redis,
          blockExecutor: true,
        });
        let survivor: Awaited<ReturnType<typeof startReviewLaneWorkers>> | undefined;
        try {
          await doomed.send(0, { kind: 'startWorking' });
          const { itemId } = (await doomed.send(0, {
            kind: 'propose',
            toolCallId: 'call_killed',
            amount: 500,
          })) as ProposeReply;
          expect(await doomed.send(0, { kind: 'decide', itemId, verdict: 'approve', reviewerId: 'staff:7' })).toEqual({
            outcome: 'approved',
            itemId,
          });
          await doomed.send(0, { kind: 'awaitExecutor' });
          expect(await doomed.kill(0)).toEqual({ code: null, signal: 'SIGKILL' });

          survivor = await startReviewLaneWorkers({
            keeper,
            count: 1,
            dataSource,
            ledgerTable,
            redis: lane.redis,
            blockExecutor: false,
          });
          await survivor.send(0, { kind: 'startWorking' });
          // BullMQ hands the killed worker's job to the survivor once its lock expired: the claim refuses it.
          expect(await lane.finished(itemId)).toEqual({ itemId, executed: false });
          const report = (await survivor.send(0, { kind: 'report' })) as ReportReply;
          expect({ entries: report.executorEntries, outcomes: report.outcomes }).toEqual({
            entries: 0,
            outcomes: [{ itemId, executed: false }],
          });
          expect(await ledgerOf(dataSource, ledgerTable)).toEqual([]);
          const claims: Array<{ status: string; policy: string }> = await dataSource.query(
            'SELECT status, policy FROM verdict_execution_claims',
          );
          expect(claims).toEqual([{ status: 'claimed', policy: 'verdict.deferred' }]);
          expect((await new TypeOrmReviewItemStore(dataSource).find(itemId))?.status).toBe('approved');
          console.info(
            `[${engine.name}] SIGKILL mid-executor: claim ${claims[0]!.status}, ${report.executorEntries} re-executions after the retried delivery`,
          );
        } finally {
          await doomed.close();
          await survivor?.close();
          await lane.close();
          await dataSource.query(`DELETE FROM verdict_execution_claims`);
        }
      },
    );

    withRedis(
      `${WORKERS} worker processes racing on ${JOBS_PER_ITEM} duplicate jobs of each of ${ITEMS} items execute each item exactly once`,
      async () => {
        // The decision race's approved items wait in the shared queue: only the duplicates below are raced.
        await lane!.queue.drain();
        const jobIds: string[] = [];
        for (let item = 0; item < ITEMS; item++) {
          const amount = 1000 + item;
          const { itemId } = (await pool.send(0, {
            kind: 'propose',
            toolCallId: `call_dup_${item}`,
            amount,
          })) as ProposeReply;
          await pool.send(0, { kind: 'decide', itemId, verdict: 'approve', reviewerId: 'staff:7' });
          jobIds.push(itemId);
          for (let copy = 1; copy < JOBS_PER_ITEM; copy++) {
            const duplicate = await lane!.queue.add('deferred', { itemId }, { jobId: `${itemId}-copy-${copy}` });
            jobIds.push(duplicate.id!);
          }
        }
        const started = performance.now();
        await pool.broadcast({ kind: 'startWorking' });
        const outcomes = (await Promise.all(jobIds.map((id) => lane!.finished(id)))) as Array<{ executed: boolean }>;
        const seconds = (performance.now() - started) / 1000;
        const reports = (await Promise.all(
          Array.from({ length: WORKERS }, (_, index) => pool.send(index, { kind: 'report' })),
        )) as ReportReply[];
        const executions = reports.reduce((sum, report) => sum + report.executorEntries, 0);
        const busyWorkers = reports.filter((report) => report.outcomes.length > 0).length;
        console.info(
          `[${engine.name}] deferred execution: ${WORKERS} worker processes × ${ITEMS} items × ${JOBS_PER_ITEM} jobs = ${jobIds.length} deliveries in ${seconds.toFixed(1)} s; ` +
            `${executions} executions, ${busyWorkers} workers took jobs`,
        );
        expect(outcomes.filter((outcome) => outcome.executed)).toHaveLength(ITEMS);
        expect(executions).toBe(ITEMS);
        const ledger = await ledgerOf(dataSource, ledgerTable);
        expect(ledger).toEqual(Array.from({ length: ITEMS }, (_, item) => ({ amount: 1000 + item })));
      },
    );
  });
}
