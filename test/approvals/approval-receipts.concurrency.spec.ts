import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { DataSource } from 'typeorm';
import { TypeOrmApprovalReceiptStore, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import {
  approvePending,
  databaseEngines,
  dropDataSource,
  openDataSource,
  startGateWorkers,
  WorkerKeeper,
} from '@verdict/testing-kit';
import type { DatabaseEngine, GateWorkers } from '@verdict/testing-kit';
import type { ApprovalReceipt } from '../../packages/verdict/src/approvals/approval-receipt.js';
import { fingerprint } from '../../packages/verdict/src/fingerprints/fingerprint.js';

/** Racing OS processes: enough that every round is a real race on this two-core machine, few enough to start once per engine. */
const PROCESSES = 8;
/**
 * Rounds of each race. A store that reads and then writes loses these races within a few rounds on every
 * engine (ADR 0056); `npm run soak` races each gate 10,000 times.
 */
const ROUNDS = 20;
/** Rounds of each pending-receipt cap race, and the cap they race for. */
const CAP_ROUNDS = 10;
const MAX_PENDING = 3;
const TTL_MS = 900_000;
/** Forking the workers and opening their connections, on a loaded machine: a budget, never a synchronization. */
const POOL_START_TIMEOUT_MS = 180_000;

/**
 * Single use, a single decision and the pending-receipt caps across real OS processes, each with its own
 * connection. One database and one pool of workers per engine, started once and shared by the races; every
 * round has keys of its own (a fresh receipt, a fresh principal), so no race sees another's rows.
 */
/** The worker processes, started once and given each engine's database in turn. */
const keeper = new WorkerKeeper();
afterAll(() => keeper.close());

for (const engine of databaseEngines()) {
  describe(`Approval receipts across ${PROCESSES} OS processes [${engine.name}]`, () => {
    let shared: Awaited<ReturnType<typeof startWorkers>> | undefined;
    beforeAll(async () => {
      shared = await startWorkers(engine);
    }, POOL_START_TIMEOUT_MS);
    afterAll(async () => {
      await shared?.close();
    });
    /** The engine's shared operator store and workers. */
    const setup = () => {
      if (shared === undefined) throw new Error('The gate workers did not start.');
      return shared;
    };

    /** All processes consume one approved receipt at once: exactly one may consume it, the others see a replay. */
    it(`lets exactly one process consume an approved receipt in each of ${ROUNDS} rounds; the others see it consumed`, async () => {
      const { operator, workers } = setup();
      const consumers: number[] = [];
      const winners = new Set<number>();
      const violations: string[] = [];
      const started = performance.now();

      for (let round = 0; round < ROUNDS; round++) {
        const pending = await operator.issue(issueRequest(engine, `consume_${round}`));
        const approved = await approvePending(operator, pending, `round ${round}`);

        const now = new Date();
        const checks = await workers.consumeReceiptAll({ ...keyOf(pending), now });
        const consumed = checks.flatMap((check, index) => (check.outcome === 'approved' ? [index] : []));
        consumers.push(consumed.length);
        consumed.forEach((index) => winners.add(index));
        // The winner and every replay answer with the row as the winner left it; the row stays so.
        const expected = { ...approved, status: 'consumed', consumedAt: now, updatedAt: now };
        checks.forEach((check, index) => {
          if (!['approved', 'consumed'].includes(check.outcome) || !sameData(check.receipt, expected)) {
            violations.push(`round ${round} process ${index}: ${check.outcome} ${JSON.stringify(check.receipt)}`);
          }
        });
        const stored = await operator.find(pending.id);
        if (!sameData(stored, expected)) violations.push(`round ${round}: the row is ${JSON.stringify(stored)}`);
      }

      const seconds = (performance.now() - started) / 1000;
      console.info(
        `[${engine.name}] approval receipt consumption: ${PROCESSES} processes × ${ROUNDS} rounds in ${seconds.toFixed(1)} s; ` +
          `${winners.size} different processes won a round`,
      );
      expect({ rounds: consumers.length, notExactlyOne: offRounds(consumers) }).toEqual({
        rounds: ROUNDS,
        notExactlyOne: [],
      });
      expect(violations).toEqual([]);
    });

    /** Half approve and half reject one pending receipt at once: exactly one decision may apply, and the row must keep it. */
    it(`applies exactly one of ${PROCESSES / 2} approvals and ${PROCESSES / 2} rejections of a pending receipt in each of ${ROUNDS} rounds`, async () => {
      const { operator, workers } = setup();
      const applied: number[] = [];
      const wins = { approved: 0, rejected: 0 };
      const violations: string[] = [];
      const started = performance.now();

      for (let round = 0; round < ROUNDS; round++) {
        const pending = await operator.issue(issueRequest(engine, `decide_${round}`));
        const now = new Date();
        // Alternating, so that neither decision is always sent first.
        const replies = await workers.decideReceiptAll(
          { receiptId: pending.id, toolCallId: pending.toolCallId, now },
          (index) => (index % 2 === 0 ? 'approve' : 'reject'),
        );

        const winners = replies.flatMap((reply, index) => ('receipt' in reply ? [{ reply, index }] : []));
        applied.push(winners.length);
        if (winners.length !== 1) continue;
        const [{ reply: winner, index }] = winners;
        const by = `approver:${index}`;
        const expected =
          winner.decision === 'approve'
            ? { ...pending, status: 'approved', approvedBy: by, approvedAt: now, updatedAt: now }
            : { ...pending, status: 'rejected', rejectedBy: by, rejectedAt: now, updatedAt: now };
        wins[winner.outcome]++;
        if (winner.outcome !== expected.status)
          violations.push(`round ${round}: a ${winner.decision} answered ${winner.outcome}`);
        if (!sameData(winner.receipt, expected))
          violations.push(`round ${round}: the winner answered ${JSON.stringify(winner.receipt)}`);
        const stored = await operator.find(pending.id);
        if (!sameData(stored, expected))
          violations.push(
            `round ${round}: the row ${JSON.stringify(stored)} does not keep the ${winner.decision} by ${by}`,
          );
        for (const [loser, reply] of replies.entries()) {
          if (loser !== index && reply.outcome !== 'invalid_state')
            violations.push(`round ${round} process ${loser}: ${reply.decision} answered ${reply.outcome}`);
        }
      }

      const seconds = (performance.now() - started) / 1000;
      console.info(
        `[${engine.name}] approval receipt decisions: ${PROCESSES} processes × ${ROUNDS} rounds in ${seconds.toFixed(1)} s; ` +
          `approvals won ${wins.approved} rounds, rejections ${wins.rejected}`,
      );
      expect({ rounds: applied.length, notExactlyOne: offRounds(applied) }).toEqual({
        rounds: ROUNDS,
        notExactlyOne: [],
      });
      expect(violations).toEqual([]);
    });

    /**
     * Batch approvals (ADR 0102): each process decides the same batch of three receipts at once, half approving all,
     * half rejecting all. Exactly one decision applies, to every item: the rows never mix the two.
     */
    it(`applies exactly one of ${PROCESSES} racing decisions of an approval batch, to every item, in each of ${ROUNDS} rounds`, async () => {
      const { operator, workers } = setup();
      const applied: number[] = [];
      const violations: string[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const batchId = fingerprint({ batch: round, nonce: randomBytes(8).toString('hex') });
        const receipts: ApprovalReceipt[] = [];
        for (const item of [0, 1, 2])
          receipts.push(
            await operator.issue({
              ...issueRequest(engine, `batch_${batchId.slice(0, 12)}_${item}`),
              batch: { id: batchId, arguments: { item } },
            }),
          );
        const now = new Date();
        const replies = await workers.decideReceiptBatchAll((index) => ({
          batchId,
          items: receipts.map((r) => ({
            receiptId: r.id,
            toolCallId: r.toolCallId,
            verdict: index % 2 === 0 ? ('approve' as const) : ('reject' as const),
          })),
          by: `approver:${index}`,
          now,
        }));
        const winners = replies.flatMap((reply, index) => (reply.outcome === 'decided' ? [index] : []));
        applied.push(winners.length);
        for (const [index, reply] of replies.entries())
          if (reply.outcome !== 'decided' && reply.outcome !== 'invalid_state')
            violations.push(`round ${round} process ${index}: ${reply.outcome}`);
        if (winners.length !== 1) continue;
        const status = winners[0] % 2 === 0 ? 'approved' : 'rejected';
        const stored = await operator.inBatch(batchId);
        if (stored.some((r) => r.status !== status || r.arguments !== null))
          violations.push(
            `round ${round}: the rows ${JSON.stringify(stored.map((r) => r.status))} are not all ${status}`,
          );
      }
      expect({ rounds: applied.length, notExactlyOne: offRounds(applied) }).toEqual({
        rounds: ROUNDS,
        notExactlyOne: [],
      });
      expect(violations).toEqual([]);
    });

    /**
     * The pending-receipt caps (ADR 0015): every round a fresh principal, and all processes issue for it at
     * once behind the pool's start barrier. At most the caps are ever issued, and (the caps being reachable)
     * exactly that many; the database holds no more pending rows than were issued.
     */
    describe('pending receipt caps', () => {
      it(`issues exactly ${MAX_PENDING} of ${PROCESSES} racing receipts of one actor and capability (maxPending ${MAX_PENDING}) in each of ${CAP_ROUNDS} rounds`, async () => {
        const { operator, workers } = setup();
        const violations: string[] = [];
        for (let round = 0; round < CAP_ROUNDS; round++) {
          const limits = {
            principalFingerprint: fingerprint({
              actor: { round, engine: engine.name, id: randomBytes(8).toString('hex') },
              tenant: 'acme',
            }),
            maxPending: MAX_PENDING,
          };
          const replies = await workers.issueReceiptAll((index) => ({
            ...issueRequest(engine, `cap_${round}_${index}`),
            limits,
          }));
          const issued = replies.filter((receipt) => receipt !== null);
          if (issued.length !== MAX_PENDING) violations.push(`round ${round}: ${issued.length} issued`);
          const stored = await Promise.all(issued.map((receipt) => operator.find(receipt.id)));
          if (stored.some((receipt) => receipt?.status !== 'pending'))
            violations.push(`round ${round}: an issued receipt is not stored as pending`);
        }
        expect(violations).toEqual([]);
      });

      it(`issues exactly one of ${PROCESSES} racing receipts of one actor for one tool call per conversation (two conversations), each with another binding, in each of ${CAP_ROUNDS} rounds`, async () => {
        const { operator, workers } = setup();
        const violations: string[] = [];
        const conversations = [fingerprint('thread-a'), fingerprint('thread-b')];
        for (let round = 0; round < CAP_ROUNDS; round++) {
          const principalFingerprint = fingerprint({
            actor: { round, engine: engine.name, id: randomBytes(8).toString('hex') },
            tenant: 'acme',
          });
          const toolCallId = `call_${randomBytes(8).toString('hex')}`;
          const replies = await workers.issueReceiptAll((index) => ({
            ...issueRequest(engine, `conversation_${round}_${index}`, toolCallId),
            limits: { principalFingerprint, maxPending: PROCESSES, conversationFingerprint: conversations[index % 2]! },
          }));
          const issued = replies.filter((receipt) => receipt !== null);
          const pending = await operator.pendingForToolCall(toolCallId, new Date());
          for (const conversation of conversations) {
            const issuedIn = issued.filter((receipt) => receipt.conversationFingerprint === conversation);
            const pendingIn = pending.filter((receipt) => receipt.conversationFingerprint === conversation);
            if (issuedIn.length !== 1) violations.push(`round ${round}: ${issuedIn.length} issued in one conversation`);
            if (pendingIn.length !== 1 || pendingIn[0]!.id !== issuedIn[0]?.id)
              violations.push(`round ${round}: ${pendingIn.length} pending in one conversation`);
          }
          if (pending.length !== 2) violations.push(`round ${round}: ${pending.length} pending for the tool call`);
        }
        expect(violations).toEqual([]);
      });
    });
  });
}

/** A fresh database on `engine`, an operator store in this process and `PROCESSES` gate workers on it; `close` drops it all. */
async function startWorkers(
  engine: DatabaseEngine,
): Promise<{ operator: TypeOrmApprovalReceiptStore; workers: GateWorkers; close(): Promise<void> }> {
  const dataSource: DataSource = await openDataSource(engine, {
    entities: verdictEntities,
    migrations: verdictMigrations,
  });
  const workers = await startGateWorkers({ count: PROCESSES, dataSource, keeper }).catch(async (error: unknown) => {
    await dropDataSource(dataSource);
    throw error;
  });
  return {
    operator: new TypeOrmApprovalReceiptStore(dataSource),
    workers,
    close: async () => {
      try {
        await workers.close();
      } finally {
        await dropDataSource(dataSource);
      }
    },
  };
}

/** The rounds in which not exactly one process succeeded, as `round r: n succeeded`. */
function offRounds(successesPerRound: number[]): string[] {
  return successesPerRound.flatMap((successes, round) =>
    successes === 1 ? [] : [`round ${round}: ${successes} succeeded`],
  );
}

/**
 * Whether two receipts hold the same data. Replies cross a process boundary and arrive in Node's own
 * realm, not the test's, so prototypes (of Dates too) differ and deep strict equality would never hold.
 */
function sameData(actual: unknown, expected: unknown): boolean {
  const sorted = (_key: string, value: unknown) =>
    value !== null && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1)))
      : value;
  return JSON.stringify(actual, sorted) === JSON.stringify(expected, sorted);
}

function keyOf({ toolCallId, capability, bindingFingerprint }: ApprovalReceipt) {
  return { toolCallId, capability, bindingFingerprint };
}

/** A receipt request whose key (tool call and binding) is `name`'s: names are unique in an engine's shared database. */
function issueRequest(engine: DatabaseEngine, name: string, toolCallId = `call_${name}`) {
  const now = new Date();
  return {
    toolCallId,
    capability: 'orders.cancel',
    bindingFingerprint: fingerprint({
      capability: 'orders.cancel',
      execution_target_policy: 'refresh',
      arguments: { name },
      binding: { engine: engine.name },
    }),
    candidateId: randomBytes(32).toString('base64url'),
    reason: 'Cancelling an order cannot be undone.',
    description: `Order ${name}`,
    subject: { ownerId: 'customer:72', orderId: `order:${name}` },
    expiresAt: new Date(now.getTime() + TTL_MS),
    now,
  };
}
