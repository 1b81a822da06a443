import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import {
  type BudgetReservationRequest,
  InMemoryBudgetStore,
  OuterTransactionError,
  fingerprint,
  spendBudgetStanding,
} from '@verdict/nestjs';
import { describeBudgetStoreContract } from '@verdict/nestjs/testing';
import { BudgetWindowEntity, TypeOrmBudgetStore, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import {
  countingStatements,
  databaseEngines,
  dropDataSource,
  openDataSource,
  remigrate,
  withDataSource,
} from '@verdict/testing-kit';
import { CreateBudgetWindows1797004000000 } from '../../packages/verdict/src/typeorm/migrations/1797004000000-create-budget-windows.js';

const TABLE = 'verdict_budget_windows';
const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };

describeBudgetStoreContract('memory', async () => ({ store: new InMemoryBudgetStore(), close: async () => {} }));

for (const engine of databaseEngines()) {
  describeBudgetStoreContract(engine.name, async () => {
    const dataSource = await openDataSource(engine, SCHEMA);
    return { store: new TypeOrmBudgetStore(dataSource), close: () => dropDataSource(dataSource) };
  });

  describe(`TypeOrmBudgetStore [${engine.name}]`, () => {
    it('rejects with the database error, never a throttle, when the store fails', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        await dataSource.query(`DROP TABLE ${TABLE}`);
        const store = new TypeOrmBudgetStore(dataSource);

        await expect(store.reserve(spend())).rejects.toThrow(/verdict_budget_windows/);
        await expect(store.commit(spend())).rejects.toThrow(/verdict_budget_windows/);
      });
    });

    it('keeps the totals beyond 32 bits and the instants as UTC, to the millisecond', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const store = new TypeOrmBudgetStore(dataSource);
        const request = { ...spend(), windowStart: new Date('2024-02-29T23:59:59.987Z'), windowSeconds: 1 };
        const big = { ...request, limit: 2 ** 40, amount: 2 ** 33 };
        await store.reserve(big);
        await store.commit(big);
        expect(await store.reserve({ ...big, amount: 3 })).toMatchObject({
          reserved: true,
          remaining: 2 ** 40 - 2 ** 33 - 3,
        });

        const rows = await dataSource
          .getRepository(BudgetWindowEntity)
          .findBy({ bucketFingerprint: request.bucketFingerprint });
        expect(rows.map((row) => ({ ...row }))).toEqual([
          {
            bucketFingerprint: request.bucketFingerprint,
            windowStart: request.windowStart,
            spent: 2 ** 33,
            reserved: 3,
            expiresAt: new Date('2024-03-01T00:00:00.987Z'),
          },
        ]);
      });
    });

    it('attack: reading where budgets stand (an amount of 0) for many keys writes no window row', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const store = new TypeOrmBudgetStore(dataSource);
        const budget = { per: 'tenant', window: 3600, limit: 5 } as const;
        const now = new Date(Date.UTC(2024, 1, 29, 23, 30));
        for (let key = 0; key < 20; key++) {
          const context = { actor: 'reader', tenant: `tenant-${key}` };
          expect(await spendBudgetStanding(store, 'orders.refund', budget, context, now)).toEqual({
            remaining: 5,
            resetAt: new Date(Date.UTC(2024, 2, 1)),
          });
          expect(await store.reserve({ ...spend(), amount: 0 })).toMatchObject({ reserved: true, remaining: 5 });
        }

        expect(await dataSource.getRepository(BudgetWindowEntity).count()).toBe(0);
      });
    });

    it('control: a spend still creates its window and is counted exactly, and a read after it sees it', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const store = new TypeOrmBudgetStore(dataSource);
        const request = { ...spend(), limit: 10, amount: 4 };
        await store.reserve(request);
        await store.commit(request);
        expect(await store.reserve({ ...request, amount: 3 })).toMatchObject({ reserved: true, remaining: 3 });

        expect(await store.reserve({ ...request, amount: 0 })).toMatchObject({ reserved: true, remaining: 3 });
        expect(await store.reserve({ ...request, limit: 6, amount: 0 })).toMatchObject({ reserved: false });
        const rows = await dataSource.getRepository(BudgetWindowEntity).find();
        expect(rows.map(({ spent, reserved }) => ({ spent, reserved }))).toEqual([{ spent: 4, reserved: 3 }]);
      });
    });

    if (engine.name === 'sqlite') {
      it('refuses to reserve inside an outer transaction on the same connection, and changes nothing', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const store = new TypeOrmBudgetStore(dataSource);
          const request = { ...spend(), limit: 1, amount: 1 };
          const queryRunner = dataSource.createQueryRunner();
          await queryRunner.startTransaction();
          try {
            await expect(store.reserve(request)).rejects.toThrow(OuterTransactionError);
          } finally {
            await queryRunner.rollbackTransaction();
            await queryRunner.release();
          }
          expect(await store.reserve(request)).toMatchObject({ reserved: true });
        });
      });
    } else {
      it('reserves, refuses, commits, releases and reads in one statement each', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const statements = await countingStatements(dataSource);
          try {
            const store = new TypeOrmBudgetStore(statements.dataSource);
            const request = { ...spend(), limit: 10, amount: 6 };

            expect(await statements.during(() => store.reserve(request))).toBe(1);
            expect(await statements.during(() => store.reserve(request))).toBe(1);
            expect(await statements.during(() => store.commit(request))).toBe(1);
            expect(await statements.during(() => store.release(request))).toBe(1);
            expect(await statements.during(() => store.reserve({ ...request, amount: 0 }))).toBe(1);
          } finally {
            await statements.dataSource.destroy();
          }
        });
      });
    }
  });

  describe(`CreateBudgetWindows migration [${engine.name}]`, () => {
    it('drops the table on down, and up creates it again with its key and index', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const table = await remigrate(dataSource, new CreateBudgetWindows1797004000000(), TABLE);
        expect(table.primaryColumns.map((column) => column.name).sort()).toEqual([
          'bucket_fingerprint',
          'window_start',
        ]);
        expect(table.indices.map((index) => index.name)).toEqual(['idx_verdict_budget_windows_expires_at']);
        expect(await new TypeOrmBudgetStore(dataSource).reserve(spend())).toMatchObject({ reserved: true });
      });
    });
  });
}

function spend(): BudgetReservationRequest {
  const bucketFingerprint = fingerprint({
    budget: 'refunds',
    per: 'actor',
    window_seconds: 3600,
    binding: randomUUID(),
  });
  return {
    bucketFingerprint,
    windowStart: new Date(Date.UTC(2024, 1, 29, 23)),
    windowSeconds: 3600,
    limit: 5,
    amount: 1,
  };
}
