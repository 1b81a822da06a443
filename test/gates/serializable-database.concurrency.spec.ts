import { afterAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { fingerprint } from '@verdict/nestjs';
import { TypeOrmApprovalReceiptStore, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import {
  approvePending,
  databaseEngines,
  dropDataSource,
  externalCopiesModel,
  openDataSource,
  startGateWorkers,
  withDefaultIsolation,
  WorkerKeeper,
} from '@verdict/testing-kit';
import type { BatchReply } from '@verdict/testing-kit';

const PROCESSES = 8;
const ROUNDS = 4;
/** Each process spends two units of a fresh bucket, and folds two uploads into a fresh trajectory, per round. */
const TIMES = 2;
const LIMIT = 3;

/**
 * The durable gates on a PostgreSQL database whose default isolation is not READ COMMITTED (ADR 0176): a setting some
 * teams give their whole database. Every round, real OS processes race each gate on a fresh key: a rate-limit bucket,
 * an execution claim, a trajectory and an approved receipt. Under REPEATABLE READ and SERIALIZABLE, PostgreSQL refuses
 * a statement whose row a racing one changed first (`could not serialize access due to concurrent update`); each must
 * still be admitted or refused as on a READ COMMITTED database, never fail.
 */
const keeper = new WorkerKeeper();
afterAll(() => keeper.close());

for (const engine of databaseEngines().filter((candidate) => candidate.name === 'postgres')) {
  for (const isolation of ['serializable', 'repeatable read', 'read committed']) {
    const label = isolation === 'read committed' ? 'control: ' : 'attack: ';
    describe(`Durable gates on a ${isolation} PostgreSQL database, ${PROCESSES} OS processes`, () => {
      it(`${label}racing callers are admitted or refused as the limits say, and no call fails`, async () => {
        const dataSource = await openDataSource(engine, { entities: verdictEntities, migrations: verdictMigrations });
        const workers = await startGateWorkers({
          count: PROCESSES,
          dataSource: withDefaultIsolation(dataSource, isolation),
          keeper,
        }).catch(async (error: unknown) => {
          await dropDataSource(dataSource);
          throw error;
        });
        try {
          const receipts = new TypeOrmApprovalReceiptStore(dataSource);
          const failures: string[] = [];
          const off: string[] = [];
          for (let round = 0; round < ROUNDS; round++) {
            const key = (gate: string) => fingerprint({ gate, round, isolation });
            const pending = await receipts.issue(receiptRequest(key('receipt')));
            await approvePending(receipts, pending, `round ${round}`);
            const now = new Date();
            const replies = await workers.batchAll(() => [
              {
                gate: 'consume',
                bucketFingerprint: key('rate'),
                windowStart: new Date(Math.floor(now.getTime() / 60_000) * 60_000),
                windowSeconds: 60,
                limit: LIMIT,
                times: TIMES,
              },
              { gate: 'admit', capability: 'orders.cancel', policy: 'once', bindingFingerprint: key('claim'), now },
              {
                gate: 'advanceTrajectory',
                trajectoryFingerprint: key('trajectory'),
                stateModel: externalCopiesModel(LIMIT),
                effect: { effect: 'upload', destination: 'external:drop.example' },
                times: TIMES,
                now,
              },
              {
                gate: 'consumeReceipt',
                toolCallId: pending.toolCallId,
                capability: pending.capability,
                bindingFingerprint: pending.bindingFingerprint,
                now,
              },
            ]);
            failures.push(...failed(replies).map((failure) => `round ${round}: ${failure}`));
            const admitted = admissions(replies);
            if (failures.length === 0 && JSON.stringify(admitted) !== JSON.stringify(EXPECTED))
              off.push(`round ${round}: ${JSON.stringify(admitted)}`);
          }
          expect({ failures: failures.slice(0, 3), failed: failures.length, off }).toEqual({
            failures: [],
            failed: 0,
            off: [],
          });
        } finally {
          await workers.close();
          await dropDataSource(dataSource);
        }
      });
    });
  }
}

/** Per round: the bucket's limit, one claim, the trajectory's allowed copies, one consumption of the receipt. */
const EXPECTED = { rate: LIMIT, claim: 1, trajectory: LIMIT, receipt: 1 };

/** Each call of the round that threw: which gate, and what. */
function failed(replies: readonly BatchReply[]): string[] {
  const gates = ['consume', 'admit', 'advanceTrajectory', 'consumeReceipt'];
  return replies.flatMap((reply) =>
    reply.outcomes.flatMap((outcome, index) =>
      'error' in outcome ? [`${gates[index]}: ${outcome.error.name}: ${outcome.error.message.slice(0, 100)}`] : [],
    ),
  );
}

/** How many calls of the round each gate admitted. */
function admissions(replies: readonly BatchReply[]): typeof EXPECTED {
  const admitted = { rate: 0, claim: 0, trajectory: 0, receipt: 0 };
  for (const reply of replies)
    for (const outcome of reply.outcomes) {
      if ('error' in outcome) continue;
      const answer = outcome.reply as unknown as Record<string, unknown>;
      if ('consumptions' in answer)
        admitted.rate += (answer.consumptions as Array<{ allowed: boolean }>).filter((c) => c.allowed).length;
      else if ('claimId' in answer) admitted.claim += answer.admitted === true ? 1 : 0;
      else if ('outcomes' in answer)
        admitted.trajectory += (answer.outcomes as Array<{ admitted: boolean }>).filter((o) => o.admitted).length;
      else if ('outcome' in answer) admitted.receipt += answer.outcome === 'approved' ? 1 : 0;
    }
  return admitted;
}

/** A pending receipt whose key is `binding`'s. */
function receiptRequest(binding: string) {
  const now = new Date();
  return {
    toolCallId: `call_${binding.slice(0, 16)}`,
    capability: 'orders.cancel',
    bindingFingerprint: binding,
    candidateId: randomBytes(32).toString('base64url'),
    reason: 'Cancelling an order cannot be undone.',
    description: null,
    subject: null,
    expiresAt: new Date(now.getTime() + 900_000),
    now,
  };
}
