import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { DataSource, QueryFailedError } from 'typeorm';
import { fingerprint, type RateLimitRequest } from '@verdict/nestjs';
import {
  TypeOrmEvidenceRecorder,
  TypeOrmRateLimitStore,
  TypeOrmTaintLedger,
  useUnnamedStatements,
  verdictEntities,
  verdictMigrations,
} from '@verdict/nestjs/typeorm';
import { databaseEngines, withDataSource } from '@verdict/testing-kit';
import { sampleDecision } from '../evidence/sample-decision.fixture.js';
import { NAMED_STATEMENTS_PER_DATA_SOURCE } from '../../packages/verdict/src/typeorm/store-connection.js';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };

// ADR 0113: a pooler in transaction mode (PgBouncer < 1.21) hands a client connection another server session
// between statements, so a statement prepared on the first is missing on the next. `DEALLOCATE ALL` on the
// DataSource's only pooled connection is that session change, seen from the client.
for (const engine of databaseEngines().filter(({ name }) => name === 'postgres')) {
  describe(`Store statements behind a transaction pooler [${engine.name}]`, () => {
    it('fail as QueryFailedError, never as a throttle, when a named statement went missing (the default)', async () => {
      await withOneConnection(engine, async (dataSource) => {
        const store = new TypeOrmRateLimitStore(dataSource);
        const request = unit(5);

        expect(await store.consume(request)).toMatchObject({ allowed: true, count: 1 });
        expect(await preparedNames(dataSource)).toEqual([expect.stringMatching(/^verdict_[0-9a-f]{40}$/)]);
        await dataSource.query('DEALLOCATE ALL');

        const missing = store.consume(request);
        await expect(missing).rejects.toBeInstanceOf(QueryFailedError);
        await expect(missing).rejects.toThrow(/prepared statement .* does not exist/);
      });
    });

    it('keeps gating after the session changed when the DataSource uses unnamed statements', async () => {
      await withOneConnection(engine, async (dataSource) => {
        const store = new TypeOrmRateLimitStore(useUnnamedStatements(dataSource));
        const request = unit(2);

        expect(await store.consume(request)).toMatchObject({ allowed: true, count: 1 });
        expect(await preparedNames(dataSource)).toEqual([]);
        await dataSource.query('DEALLOCATE ALL');

        expect(await store.consume(request)).toMatchObject({ allowed: true, count: 2, remaining: 0 });
        // Still a gate: the limit holds in this mode too.
        expect(await store.consume(request)).toMatchObject({ allowed: false, remaining: 0 });
      });
    });

    it('sends a statement that varies with its batch size unnamed, and names at most 256 texts per DataSource', async () => {
      await withOneConnection(engine, async (dataSource) => {
        const ledger = new TypeOrmTaintLedger(dataSource);
        // One instant for the recording and the lookup: a slow run cannot see entries expire in between.
        const now = new Date();
        const expiresAt = new Date(now.getTime() + 60_000);
        // 100 batch sizes, 100 statement texts: none prepared, every one recorded and found.
        const recorded: string[] = [];
        for (let size = 1; size <= 100; size++) {
          const batch = Array.from({ length: size }, () => fingerprint(['taint', randomUUID()]));
          await ledger.record('acme', batch, expiresAt);
          recorded.push(...batch);
        }
        expect(await preparedNames(dataSource)).toEqual([]);
        expect((await ledger.tainted('acme', recorded, now)).size).toBe(recorded.length);

        // The evidence recorder's INSERT has one text per record count: named up to the DataSource's bound.
        const recorder = new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' });
        for (let count = 1; count <= NAMED_STATEMENTS_PER_DATA_SOURCE + 4; count++)
          await recorder.recordDecisions(Array.from({ length: count }, sampleDecision));
        expect(await preparedNames(dataSource)).toHaveLength(NAMED_STATEMENTS_PER_DATA_SOURCE);
        const [{ stored }] = await dataSource.query('SELECT count(*)::int AS stored FROM verdict_decision_records');
        expect(stored).toBe(((NAMED_STATEMENTS_PER_DATA_SOURCE + 4) * (NAMED_STATEMENTS_PER_DATA_SOURCE + 5)) / 2);
      });
    });
  });
}

/** A migrated DataSource on the test schema whose pool holds one connection, so raw SQL shares the stores' session. */
async function withOneConnection(
  engine: ReturnType<typeof databaseEngines>[number],
  test: (dataSource: DataSource) => Promise<void>,
): Promise<void> {
  await withDataSource(engine, SCHEMA, async (migrated) => {
    const options = migrated.options as typeof migrated.options & { extra?: Record<string, unknown> };
    const dataSource = await new DataSource({ ...options, extra: { ...options.extra, max: 1 } }).initialize();
    try {
      await test(dataSource);
    } finally {
      await dataSource.destroy();
    }
  });
}

async function preparedNames(dataSource: DataSource): Promise<string[]> {
  const rows: Array<{ name: string }> = await dataSource.query('SELECT name FROM pg_prepared_statements ORDER BY name');
  return rows.map(({ name }) => name);
}

function unit(limit: number): RateLimitRequest {
  return {
    bucketFingerprint: fingerprint(['unnamed-statements', randomUUID()]),
    windowStart: new Date('2024-02-29T12:00:00.000Z'),
    windowSeconds: 60,
    limit,
  };
}
