import { describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { DataSource, type Logger } from 'typeorm';
import {
  type ApprovalReceipt,
  type ReceiptIssue,
  type ReceiptKey,
  fingerprint,
  receiptTombstone,
} from '@verdict/nestjs';
import { TypeOrmApprovalReceiptStore, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, withDataSource } from '@verdict/testing-kit';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };
const TOMBSTONES = 'verdict_approval_receipt_tombstones';
const ISSUED = new Date('2024-02-29T12:00:00.000Z');
/** The consuming process's clock. */
const CONSUMER_NOW = new Date('2024-02-29T12:09:00.000Z');
/** The pruning process's clock, two minutes ahead of the consumer's: it prunes everything decided before its now. */
const PRUNER_NOW = new Date('2024-02-29T12:11:00.000Z');

/**
 * A consumed receipt is deleted only after its tombstone is written, so its replay still answers `consumed`
 * (docs/evidence.md, "Retention"). That must hold whatever the processes' clocks say: here the pruner's clock runs
 * two minutes ahead of the consumer's, and the consumer consumes two approved receipts while a prune is under way
 * (after it read what to delete, when it writes its first tombstone): one that expired by the pruner's clock but not
 * by the consumer's, and one that expires later but is consumed at a time before the pruner's date.
 */
for (const engine of databaseEngines()) {
  describe(`Approval receipt pruning with skewed clocks [${engine.name}]`, () => {
    it('attack: a receipt consumed while a prune runs, by a process whose clock is behind, is never deleted without its tombstone', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const consumerSource = await new DataSource({ ...dataSource.options, migrations: [] }).initialize();
        let consumptions: Promise<unknown[]> | undefined;
        let tombstoneSent: () => void = () => {};
        const tombstoneWriting = new Promise<void>((resolve) => (tombstoneSent = resolve));
        const consumer = new TypeOrmApprovalReceiptStore(consumerSource);
        const pruner = await watched(dataSource, (sql) => {
          if (consumptions !== undefined || !sql.includes(`INTO ${TOMBSTONES}`)) return;
          // On SQLite the consumer's statements run here, synchronously, before the tombstone is written.
          consumptions = Promise.all(
            [expiring, later].map((receipt) => consumer.consume(keyOf(receipt), CONSUMER_NOW)),
          );
          tombstoneSent();
        });
        const store = new TypeOrmApprovalReceiptStore(dataSource);
        const old = await approved(store, { expiresAt: new Date('2024-02-29T12:05:00.000Z') });
        expect((await store.consume(keyOf(old), new Date('2024-02-29T12:01:00.000Z'))).outcome).toBe('approved');
        const expiring = await approved(store, { expiresAt: new Date('2024-02-29T12:10:00.000Z') });
        const later = await approved(store, { expiresAt: new Date('2024-02-29T12:30:00.000Z') });
        // PostgreSQL, MariaDB: an uncommitted tombstone of the same key holds the prune's first tombstone write until
        // the consumptions are done.
        const holder = engine.name === 'sqlite' ? null : dataSource.createQueryRunner();
        try {
          if (holder !== null) {
            await holder.startTransaction();
            await holder.query(
              `INSERT INTO ${TOMBSTONES} (key_fingerprint, consumed_at) VALUES (${engine.name === 'postgres' ? '$1, $2' : '?, ?'})`,
              [receiptTombstone(old), ISSUED],
            );
          }
          const pruning = pruner.store.prune(PRUNER_NOW);
          await tombstoneWriting;
          expect(await consumptions).toMatchObject([{ outcome: 'approved' }, { outcome: 'approved' }]);
          await holder?.rollbackTransaction();
          await pruning;
          // Whatever the first prune left, the next one (as a scheduled job runs) removes with its tombstone.
          await pruner.store.prune(PRUNER_NOW);

          // Each replay is refused by its tombstone; without it, it would be `not_found` and ask a human again.
          const replays = [];
          for (const receipt of [old, expiring, later])
            replays.push({
              kept: await store.find(receipt.id),
              validated: await store.validate(keyOf(receipt), CONSUMER_NOW),
              consumed: await store.consume(keyOf(receipt), CONSUMER_NOW),
            });
          const refused = { kept: null, validated: { outcome: 'consumed', receipt: null } };
          expect(replays).toEqual(Array(3).fill({ ...refused, consumed: refused.validated }));
        } finally {
          if (holder?.isTransactionActive) await holder.rollbackTransaction();
          await holder?.release();
          await pruner.dataSource.destroy();
          await consumerSource.destroy();
        }
      });
    });

    it('control: with nothing consumed meanwhile, one prune removes what is prunable and tombstones the consumed', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const store = new TypeOrmApprovalReceiptStore(dataSource);
        const old = await approved(store, { expiresAt: new Date('2024-02-29T12:05:00.000Z') });
        expect((await store.consume(keyOf(old), new Date('2024-02-29T12:01:00.000Z'))).outcome).toBe('approved');
        const expiring = await approved(store, { expiresAt: new Date('2024-02-29T12:10:00.000Z') });
        const later = await approved(store, { expiresAt: new Date('2024-02-29T12:30:00.000Z') });

        expect(await store.prune(PRUNER_NOW)).toEqual({ pruned: 2, tombstones: 1 });
        expect(await store.find(old.id)).toBeNull();
        expect(await store.find(expiring.id)).toBeNull();
        expect(await store.validate(keyOf(old), PRUNER_NOW)).toEqual({ outcome: 'consumed', receipt: null });
        expect(await store.consume(keyOf(later), PRUNER_NOW)).toMatchObject({ outcome: 'approved' });
        const next = new Date(PRUNER_NOW.getTime() + 60_000);
        expect(await store.prune(next)).toEqual({ pruned: 1, tombstones: 1 });
        expect(await store.validate(keyOf(later), next)).toEqual({ outcome: 'consumed', receipt: null });
      });
    });
  });
}

/** A store on a second DataSource of `dataSource`'s database whose every statement is shown to `sent` first. */
async function watched(dataSource: DataSource, sent: (sql: string) => void) {
  const logger: Logger = {
    logQuery: (sql) => sent(sql),
    logQueryError: () => {},
    logQuerySlow: () => {},
    logSchemaBuild: () => {},
    logMigration: () => {},
    log: () => {},
  };
  const logged = await new DataSource({ ...dataSource.options, migrations: [], logger }).initialize();
  return { dataSource: logged, store: new TypeOrmApprovalReceiptStore(logged) };
}

async function approved(
  store: TypeOrmApprovalReceiptStore,
  overrides: Partial<ReceiptIssue>,
): Promise<ApprovalReceipt> {
  const pending = await store.issue(issueRequest(overrides));
  const approval = await store.approve({
    receiptId: pending.id,
    toolCallId: pending.toolCallId,
    by: 'customer:72',
    now: ISSUED,
  });
  if (approval.outcome !== 'approved') throw new Error(`Expected an approval, got ${approval.outcome}.`);
  return approval.receipt;
}

function keyOf({ toolCallId, capability, bindingFingerprint }: ReceiptKey): ReceiptKey {
  return { toolCallId, capability, bindingFingerprint };
}

function issueRequest(overrides: Partial<ReceiptIssue>): ReceiptIssue {
  const binding = { orderId: randomBytes(16).toString('hex') };
  return {
    toolCallId: `call_${randomBytes(12).toString('hex')}`,
    capability: 'orders.cancel',
    bindingFingerprint: fingerprint({ capability: 'orders.cancel', arguments: binding, binding }),
    candidateId: randomBytes(32).toString('base64url'),
    reason: 'Cancelling an order cannot be undone.',
    description: null,
    subject: null,
    expiresAt: new Date(ISSUED.getTime() + 900_000),
    now: ISSUED,
    ...overrides,
  };
}
