import { describe, expect, it } from '@jest/globals';
import type { DataSource, QueryRunner } from 'typeorm';
import { randomBytes } from 'node:crypto';
import {
  InMemoryApprovalReceiptStore,
  OuterTransactionError,
  fingerprint,
  type ApprovalReceipt,
  type ReceiptIssue,
  type ReceiptKey,
} from '@verdict/nestjs';
import { describeApprovalReceiptStoreContract } from '@verdict/nestjs/testing';
import { TypeOrmApprovalReceiptStore, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import {
  countingStatements,
  databaseEngines,
  dropDataSource,
  expectKilledMidStatement,
  onceReconnected,
  openDataSource,
  remigrate,
  withDataSource,
} from '@verdict/testing-kit';
import { CreateApprovalReceipts1795996093417 } from '../../packages/verdict/src/typeorm/migrations/1795996093417-create-approval-receipts.js';
import { AddApprovalReceiptPrincipals1796000104000 } from '../../packages/verdict/src/typeorm/migrations/1796000104000-add-approval-receipt-principals.js';
import { AddApprovalReceiptConversations1796000110300 } from '../../packages/verdict/src/typeorm/migrations/1796000110300-add-approval-receipt-conversations.js';
import { AddApproverProvenance1796000330033 } from '../../packages/verdict/src/typeorm/migrations/1796000330033-add-approver-provenance.js';
import { AddApprovalReceiptBatches1797010000000 } from '../../packages/verdict/src/typeorm/migrations/1797010000000-add-approval-receipt-batches.js';

const TABLE = 'verdict_approval_receipts';
const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };
const NOW = new Date('2024-02-29T12:00:00.123Z');
const LATER = new Date('2024-02-29T12:01:00.456Z');

describeApprovalReceiptStoreContract('memory', async () => ({
  store: new InMemoryApprovalReceiptStore(),
  close: async () => {},
}));

for (const engine of databaseEngines()) {
  describeApprovalReceiptStoreContract(engine.name, async () => {
    const dataSource = await openDataSource(engine, SCHEMA);
    return { store: new TypeOrmApprovalReceiptStore(dataSource), close: () => dropDataSource(dataSource) };
  });

  describe(`TypeOrmApprovalReceiptStore [${engine.name}]`, () => {
    it('rejects with the database error, never an outcome, when the store fails', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        await dataSource.query(`DROP TABLE ${TABLE}`);
        const store = new TypeOrmApprovalReceiptStore(dataSource);
        const request = issueRequest();
        const decision = {
          receiptId: request.candidateId,
          toolCallId: request.toolCallId,
          by: 'customer:72',
          now: LATER,
        };

        await expect(store.issue(request)).rejects.toThrow(/verdict_approval_receipts/);
        await expect(store.approve(decision)).rejects.toThrow(/verdict_approval_receipts/);
        await expect(store.reject(decision)).rejects.toThrow(/verdict_approval_receipts/);
        await expect(store.validate(keyOf(request), LATER)).rejects.toThrow(/verdict_approval_receipts/);
        await expect(store.consume(keyOf(request), LATER)).rejects.toThrow(/verdict_approval_receipts/);
        await expect(store.pendingForToolCall(request.toolCallId, LATER)).rejects.toThrow(/verdict_approval_receipts/);
      });
    });

    it('surfaces a taken candidate id as an error instead of answering with another receipt', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const store = new TypeOrmApprovalReceiptStore(dataSource);
        const first = await store.issue(issueRequest());
        const colliding = issueRequest({ candidateId: first.id });

        await expect(store.issue(colliding)).rejects.toThrow(
          engine.name === 'mariadb' ? /candidate id is already taken/ : /verdict_approval_receipts|UNIQUE|duplicate/i,
        );
        expect(await store.find(first.id)).toEqual(first);
        expect(await store.pendingForToolCall(colliding.toolCallId, LATER)).toEqual([]);
      });
    });

    if (engine.name === 'sqlite') {
      it('refuses every write inside an outer transaction on the same connection, and changes nothing', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const store = new TypeOrmApprovalReceiptStore(dataSource);
          const pending = await store.issue(issueRequest());
          const approved = await approvedReceipt(store);
          const fresh = issueRequest();
          const decision = { receiptId: pending.id, toolCallId: pending.toolCallId, by: 'customer:72', now: LATER };

          const queryRunner = dataSource.createQueryRunner();
          await queryRunner.startTransaction();
          try {
            await expect(store.issue(fresh)).rejects.toThrow(OuterTransactionError);
            await expect(store.issue({ ...issueRequest(), ...keyOf(pending) })).rejects.toThrow(OuterTransactionError);
            await expect(store.approve(decision)).rejects.toThrow(OuterTransactionError);
            await expect(store.reject(decision)).rejects.toThrow(OuterTransactionError);
            await expect(store.consume(keyOf(approved), LATER)).rejects.toThrow(OuterTransactionError);
          } finally {
            await queryRunner.rollbackTransaction();
            await queryRunner.release();
          }

          expect(await store.find(fresh.candidateId)).toBeNull();
          expect(await store.find(pending.id)).toEqual(pending);
          expect(await store.find(approved.id)).toEqual(approved);
          expect(await store.consume(keyOf(approved), LATER)).toMatchObject({ outcome: 'approved' });
        });
      });

      it('refuses inside dataSource.transaction() too, with a typed error that says what to do', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const store = new TypeOrmApprovalReceiptStore(dataSource);
          const approved = await approvedReceipt(store);
          const outcome = dataSource.transaction(async () => store.consume(keyOf(approved), LATER));

          await expect(outcome).rejects.toMatchObject({
            code: 'VERDICT_OUTER_TRANSACTION',
            message: expect.stringMatching(/outside the transaction/),
          });
          expect(await store.find(approved.id)).toEqual(approved);
        });
      });
    } else {
      it('commits on a connection of its own: an application rollback does not undo a consumption', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const store = new TypeOrmApprovalReceiptStore(dataSource);
          const approved = await approvedReceipt(store);
          const queryRunner = dataSource.createQueryRunner();
          await queryRunner.startTransaction();
          try {
            expect(await store.consume(keyOf(approved), LATER)).toMatchObject({ outcome: 'approved' });
          } finally {
            await queryRunner.rollbackTransaction();
            await queryRunner.release();
          }

          expect(await store.consume(keyOf(approved), LATER)).toMatchObject({ outcome: 'consumed' });
        });
      });

      // PostgreSQL returns the changed row; MariaDB has no UPDATE … RETURNING and reads it back.
      const readBack = engine.name === 'mariadb' ? 1 : 0;
      it(`issues, decides and consumes in one conditional statement each${readBack ? ' (and one read back)' : ''}; a refusal reads once more`, async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const statements = await countingStatements(dataSource);
          try {
            const store = new TypeOrmApprovalReceiptStore(statements.dataSource);
            const request = issueRequest();
            const decision = {
              receiptId: request.candidateId,
              toolCallId: request.toolCallId,
              by: 'customer:72',
              now: LATER,
            };

            expect(await statements.during(() => store.issue(request))).toBe(1 + readBack);
            expect(await statements.during(() => store.issue({ ...request, candidateId: newId() }))).toBe(2);
            expect(await statements.during(() => store.validate(keyOf(request), LATER))).toBe(1);
            expect(await statements.during(() => store.approve(decision))).toBe(1 + readBack);
            expect(await statements.during(() => store.reject(decision))).toBe(2);
            expect(await statements.during(() => store.consume(keyOf(request), LATER))).toBe(1 + readBack);
            expect(await statements.during(() => store.consume(keyOf(request), LATER))).toBe(2);
          } finally {
            await statements.dataSource.destroy();
          }
        });
      });

      it('rejects with the driver error when its connection is killed mid-consumption; the receipt stays approved', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          await expectKilledMidStatement(dataSource, {
            arrange: async (pinned) => {
              const store = new TypeOrmApprovalReceiptStore(pinned);
              return { store, approved: await approvedReceipt(store) };
            },
            // An uncommitted change to the same row: the consumption waits on its lock.
            block: (blocker, { approved }) =>
              blocker.query(
                `UPDATE ${TABLE} SET reason = reason WHERE id = ${engine.name === 'postgres' ? '$1' : '?'}`,
                [approved.id],
              ),
            act: ({ store, approved }) => store.consume(keyOf(approved), LATER),
            verify: async ({ store, approved }) => {
              expect(await onceReconnected(() => store.find(approved.id))).toEqual(approved);
              expect(await store.consume(keyOf(approved), LATER)).toMatchObject({
                outcome: 'approved',
                receipt: { status: 'consumed' },
              });
            },
          });
        });
      });
    }
  });

  describe(`CreateApprovalReceipts migration [${engine.name}]`, () => {
    it('drops the table on down, and up creates it again with its unique key', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const [principals, conversations, provenance, batches] = [
          new AddApprovalReceiptPrincipals1796000104000(),
          new AddApprovalReceiptConversations1796000110300(),
          new AddApproverProvenance1796000330033(),
          new AddApprovalReceiptBatches1797010000000(),
        ];
        await onOwnRunner(dataSource, (queryRunner) => batches.down(queryRunner));
        await onOwnRunner(dataSource, (queryRunner) => provenance.down(queryRunner));
        await onOwnRunner(dataSource, (queryRunner) => conversations.down(queryRunner));
        await onOwnRunner(dataSource, (queryRunner) => principals.down(queryRunner));
        const table = await remigrate(dataSource, new CreateApprovalReceipts1795996093417(), TABLE);
        expect(table.primaryColumns.map((column) => column.name)).toEqual(['id']);
        expect(table.indices.map((index) => [index.name, index.isUnique, index.columnNames])).toEqual([
          ['uq_verdict_approval_receipts_key', true, ['tool_call_id', 'capability', 'binding_fingerprint']],
        ]);
        await onOwnRunner(dataSource, (queryRunner) => principals.up(queryRunner));
        await onOwnRunner(dataSource, (queryRunner) => conversations.up(queryRunner));
        await onOwnRunner(dataSource, (queryRunner) => provenance.up(queryRunner));
        await onOwnRunner(dataSource, (queryRunner) => batches.up(queryRunner));
        const request = issueRequest();
        expect(await new TypeOrmApprovalReceiptStore(dataSource).issue(request)).toMatchObject({
          id: request.candidateId,
          status: 'pending',
        });
      });
    });
  });

  describe(`AddApprovalReceiptPrincipals migration [${engine.name}]`, () => {
    it('adds principal_fingerprint and its index; down removes both and keeps the receipts', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const migration = new AddApprovalReceiptPrincipals1796000104000();
        const store = new TypeOrmApprovalReceiptStore(dataSource);
        const kept = await store.issue(issueRequest());
        const queryRunner = dataSource.createQueryRunner();
        try {
          await migration.down(queryRunner);
          const before = (await queryRunner.getTable(TABLE))!;
          expect(before.columns.map((column) => column.name)).not.toContain('principal_fingerprint');
          // The expiry index is a later migration's (ADR 0023), untouched by this one.
          expect(before.indices.map((index) => index.name).sort()).toEqual([
            'idx_verdict_approval_receipts_batch',
            'idx_verdict_approval_receipts_expires_at',
            'uq_verdict_approval_receipts_key',
          ]);
          await migration.up(queryRunner);
          const after = (await queryRunner.getTable(TABLE))!;
          expect(after.findColumnByName('principal_fingerprint')).toMatchObject({ isNullable: true });
          // Column sets: TypeORM reads PostgreSQL's index columns back in table order.
          expect(
            after.indices.map((index) => [index.name, index.isUnique, [...index.columnNames].sort()]).sort(),
          ).toEqual([
            ['idx_verdict_approval_receipts_batch', false, ['batch_id']],
            ['idx_verdict_approval_receipts_expires_at', false, ['expires_at']],
            ['idx_verdict_approval_receipts_principal', false, ['capability', 'expires_at', 'principal_fingerprint']],
            ['uq_verdict_approval_receipts_key', true, ['binding_fingerprint', 'capability', 'tool_call_id']],
          ]);
        } finally {
          await queryRunner.release();
        }
        expect(await store.find(kept.id)).toEqual(kept);
      });
    });

    it('never counts a receipt issued without limits (a row from before the migration) against a principal', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const store = new TypeOrmApprovalReceiptStore(dataSource);
        const legacy = await store.issue(issueRequest());
        const limits = { principalFingerprint: fingerprint({ actor: { id: 'ana' }, tenant: 'acme' }), maxPending: 1 };

        const limited = await store.issue({ ...issueRequest({ toolCallId: legacy.toolCallId }), limits });

        expect(limited).toMatchObject({ status: 'pending', toolCallId: legacy.toolCallId });
        expect(limited!.id).not.toBe(legacy.id);
      });
    });
  });

  describe(`AddApprovalReceiptConversations migration [${engine.name}]`, () => {
    it('adds conversation_fingerprint (nullable); down removes it and keeps the receipts and their principals', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const migration = new AddApprovalReceiptConversations1796000110300();
        const store = new TypeOrmApprovalReceiptStore(dataSource);
        const limits = {
          principalFingerprint: fingerprint({ actor: { id: 'ana' }, tenant: 'acme' }),
          maxPending: 5,
          conversationFingerprint: fingerprint('thread-a'),
        };
        const kept = (await store.issue({ ...issueRequest(), limits }))!;
        const queryRunner = dataSource.createQueryRunner();
        try {
          await migration.down(queryRunner);
          const before = (await queryRunner.getTable(TABLE))!;
          expect(before.columns.map((column) => column.name)).not.toContain('conversation_fingerprint');
          expect(before.columns.map((column) => column.name)).toContain('principal_fingerprint');
          await migration.up(queryRunner);
          expect((await queryRunner.getTable(TABLE))!.findColumnByName('conversation_fingerprint')).toMatchObject({
            isNullable: true,
          });
        } finally {
          await queryRunner.release();
        }
        expect(await store.find(kept.id)).toEqual({ ...kept, conversationFingerprint: null });
      });
    });
  });

  describe(`AddApproverProvenance migration [${engine.name}]`, () => {
    it('adds provenance (nullable) to receipts and review items; down removes it and keeps the receipts', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const migration = new AddApproverProvenance1796000330033();
        const store = new TypeOrmApprovalReceiptStore(dataSource);
        const kept = await store.issue(issueRequest());
        const queryRunner = dataSource.createQueryRunner();
        try {
          await migration.down(queryRunner);
          for (const table of [TABLE, 'verdict_review_items'])
            expect((await queryRunner.getTable(table))!.columns.map((column) => column.name)).not.toContain(
              'provenance',
            );
          await migration.up(queryRunner);
          for (const table of [TABLE, 'verdict_review_items'])
            expect((await queryRunner.getTable(table))!.findColumnByName('provenance')).toMatchObject({
              isNullable: true,
            });
        } finally {
          await queryRunner.release();
        }
        expect(await store.find(kept.id)).toEqual({ ...kept, provenance: null });
      });
    });
  });
}

async function onOwnRunner(dataSource: DataSource, work: (queryRunner: QueryRunner) => Promise<void>): Promise<void> {
  const queryRunner = dataSource.createQueryRunner();
  try {
    await work(queryRunner);
  } finally {
    await queryRunner.release();
  }
}

async function approvedReceipt(store: TypeOrmApprovalReceiptStore): Promise<ApprovalReceipt> {
  const pending = await store.issue(issueRequest());
  const approval = await store.approve({
    receiptId: pending.id,
    toolCallId: pending.toolCallId,
    by: 'customer:72',
    now: NOW,
  });
  if (approval.outcome !== 'approved') throw new Error(`Expected an approval, got ${approval.outcome}.`);
  return approval.receipt;
}

function newId(): string {
  return randomBytes(32).toString('base64url');
}

function keyOf({ toolCallId, capability, bindingFingerprint }: ReceiptKey): ReceiptKey {
  return { toolCallId, capability, bindingFingerprint };
}

function issueRequest(overrides: Partial<ReceiptIssue> = {}): ReceiptIssue {
  const binding = { orderId: newId() };
  return {
    toolCallId: `call_${randomBytes(12).toString('hex')}`,
    capability: 'orders.cancel',
    bindingFingerprint: fingerprint({
      capability: 'orders.cancel',
      execution_target_policy: 'refresh',
      arguments: binding,
      binding,
    }),
    candidateId: newId(),
    reason: 'Cancelling an order cannot be undone.',
    description: null,
    subject: null,
    expiresAt: new Date(NOW.getTime() + 900_000),
    now: NOW,
    ...overrides,
  };
}
