import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { InMemoryRateLimitStore, OuterTransactionError, fingerprint, type RateLimitRequest } from '@verdict/nestjs';
import { describeRateLimitStoreContract } from '@verdict/nestjs/testing';
import {
  RateLimitWindowEntity,
  TypeOrmRateLimitStore,
  verdictEntities,
  verdictMigrations,
} from '@verdict/nestjs/typeorm';
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
import { CreateRateLimitWindows1795988797707 } from '../../packages/verdict/src/typeorm/migrations/1795988797707-create-rate-limit-windows.js';

const TABLE = 'verdict_rate_limit_windows';
const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };

describeRateLimitStoreContract('memory', async () => ({ store: new InMemoryRateLimitStore(), close: async () => {} }));

for (const engine of databaseEngines()) {
  describeRateLimitStoreContract(engine.name, async () => {
    const dataSource = await openDataSource(engine, SCHEMA);
    return { store: new TypeOrmRateLimitStore(dataSource), close: () => dropDataSource(dataSource) };
  });

  describe(`TypeOrmRateLimitStore [${engine.name}]`, () => {
    it('rejects with the database error, never a throttle, when the store fails', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        await dataSource.query(`DROP TABLE ${TABLE}`);
        const store = new TypeOrmRateLimitStore(dataSource);

        await expect(store.consume(unit())).rejects.toThrow(/verdict_rate_limit_windows/);
        await expect(store.prune(new Date())).rejects.toThrow(/verdict_rate_limit_windows/);
      });
    });

    it('keeps window_start and expires_at as UTC instants, to the millisecond', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const request = { ...unit(), windowStart: new Date('2024-02-29T23:59:59.987Z'), windowSeconds: 1 };
        await new TypeOrmRateLimitStore(dataSource).consume(request);

        const rows = await dataSource
          .getRepository(RateLimitWindowEntity)
          .findBy({ bucketFingerprint: request.bucketFingerprint });
        expect(rows.map((row) => ({ ...row }))).toEqual([
          {
            bucketFingerprint: request.bucketFingerprint,
            windowStart: request.windowStart,
            count: 1,
            expiresAt: new Date('2024-03-01T00:00:00.987Z'),
          },
        ]);
      });
    });

    if (engine.name === 'sqlite') {
      it('refuses to consume or prune inside an outer transaction on the same connection, and changes nothing', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const store = new TypeOrmRateLimitStore(dataSource);
          const request = unit();
          const ended = { ...unit(), windowStart: new Date(Date.UTC(2000, 0, 1)) };
          await store.consume(ended);

          const queryRunner = dataSource.createQueryRunner();
          await queryRunner.startTransaction();
          try {
            await expect(store.consume(request)).rejects.toThrow(OuterTransactionError);
            await expect(store.prune(new Date())).rejects.toThrow(OuterTransactionError);
          } finally {
            await queryRunner.rollbackTransaction();
            await queryRunner.release();
          }

          expect(await store.consume(request)).toMatchObject({ allowed: true, count: 1 });
          expect(await store.consume(ended)).toMatchObject({ allowed: true, count: 2 });
        });
      });
    } else {
      it('commits on a connection of its own: an application rollback does not give a unit back', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const store = new TypeOrmRateLimitStore(dataSource);
          const request = unit();
          const queryRunner = dataSource.createQueryRunner();
          await queryRunner.startTransaction();
          try {
            expect(await store.consume(request)).toMatchObject({ allowed: true, count: 1 });
          } finally {
            await queryRunner.rollbackTransaction();
            await queryRunner.release();
          }

          expect(await store.consume(request)).toMatchObject({ allowed: true, count: 2 });
        });
      });

      it('consumes and refuses in one statement each', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const statements = await countingStatements(dataSource);
          try {
            const store = new TypeOrmRateLimitStore(statements.dataSource);
            const request = { ...unit(), limit: 2 };

            expect(await statements.during(() => store.consume(request))).toBe(1);
            expect(await statements.during(() => store.consume(request))).toBe(1);
            expect(await statements.during(() => store.consume(request))).toBe(1);
          } finally {
            await statements.dataSource.destroy();
          }
        });
      });

      it('rejects with the driver error, not a throttle, when its connection is killed mid-consumption; nothing was counted', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          await expectKilledMidStatement(dataSource, {
            arrange: (pinned) => ({ store: new TypeOrmRateLimitStore(pinned), request: unit() }),
            // An uncommitted row for the same window: the consumption waits on its lock.
            block: (blocker, { request }) =>
              blocker.manager.insert(RateLimitWindowEntity, {
                bucketFingerprint: request.bucketFingerprint,
                windowStart: request.windowStart,
                count: 1,
                expiresAt: new Date(),
              }),
            act: ({ store, request }) => store.consume(request),
            verify: async ({ store, request }) => {
              expect(await onceReconnected(() => store.consume(request))).toMatchObject({ allowed: true, count: 1 });
            },
          });
        });
      });
    }
  });

  describe(`CreateRateLimitWindows migration [${engine.name}]`, () => {
    it('drops the table on down, and up creates it again with its key and index', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const table = await remigrate(dataSource, new CreateRateLimitWindows1795988797707(), TABLE);
        expect(table.primaryColumns.map((column) => column.name).sort()).toEqual([
          'bucket_fingerprint',
          'window_start',
        ]);
        expect(table.indices.map((index) => index.name)).toEqual(['idx_verdict_rate_limit_windows_expires_at']);
        expect(await new TypeOrmRateLimitStore(dataSource).consume(unit())).toMatchObject({ allowed: true, count: 1 });
      });
    });
  });
}

function unit(): RateLimitRequest {
  const bucketFingerprint = fingerprint({
    capability: 'shipments.refresh',
    policy: 'per-customer',
    algorithm: 'fixed_window',
    window_seconds: 3600,
    binding: randomUUID(),
  });
  return { bucketFingerprint, windowStart: new Date(Date.UTC(2024, 1, 29, 23)), windowSeconds: 3600, limit: 3 };
}
