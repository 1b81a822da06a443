import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { DataSource, type Logger } from 'typeorm';
import { decisionRecord, fingerprint, type DecisionRecord } from '@verdict/nestjs';
import {
  DecisionRecordEntity,
  ReleaseRecordEntity,
  TypeOrmEvidenceRecorder,
  verdictEntities,
  verdictMigrations,
} from '@verdict/nestjs/typeorm';
import { databaseEngines, streamRelease, withDataSource } from '@verdict/testing-kit';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };

/**
 * ADR 0112: the recorder's INSERT, built once from the entity metadata, stores a record exactly as TypeORM's
 * InsertQueryBuilder stored it before: every column (column defaults such as `link_pending` and the `default`
 * stream included), instants, booleans, integers and nulls, in a schema-qualified table on PostgreSQL.
 */
for (const engine of databaseEngines()) {
  describe(`Evidence rows as InsertQueryBuilder stored them [${engine.name}]`, () => {
    it('stores decisions with every fact, and with none, column for column as the query builder does', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const recorder = new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' });
        for (const record of [full(), bare()]) {
          const twin = { ...record, id: randomUUID() };
          await recorder.recordDecisions([record]);
          await builderInsert(dataSource, DecisionRecordEntity, twin);

          expect(await stored(dataSource, 'verdict_decision_records', record.id)).toEqual(
            await stored(dataSource, 'verdict_decision_records', twin.id),
          );
        }
      });
    });

    it("binds every value as the driver's preparePersistentValue prepares it, plain columns' values included", async () => {
      await withDataSource(engine, SCHEMA, async (migrated) => {
        const bound: unknown[][] = [];
        const logger: Logger = {
          logQuery: (query, parameters) => {
            if (/^INSERT INTO \S*verdict_decision_records/.test(query)) bound.push(parameters as unknown[]);
          },
          logQuerySlow: () => {},
          logQueryError: () => {},
          logSchemaBuild: () => {},
          logMigration: () => {},
          log: () => {},
        };
        const dataSource = await new DataSource({ ...migrated.options, logger }).initialize();
        try {
          const records = [full(), bare()];
          await new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' }).recordDecisions(records);
          const columns = dataSource.getMetadata(DecisionRecordEntity).columns.filter((column) => column.isInsert);
          const prepared = records.flatMap((record) =>
            columns.map((column) => dataSource.driver.preparePersistentValue(column.getEntityValue(record), column)),
          );
          expect(bound).toStrictEqual([prepared]);
        } finally {
          await dataSource.destroy();
        }
      });
    });

    it('stores a release in the default stream as the query builder does', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const recorder = new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' });
        const record = release();
        const twin = { ...record, id: randomUUID() };
        await recorder.recordRelease(record);
        await builderInsert(dataSource, ReleaseRecordEntity, twin);

        const row = await stored(dataSource, 'verdict_release_records', record.id);
        expect(row).toEqual(await stored(dataSource, 'verdict_release_records', twin.id));
        expect(row).toMatchObject({ stream: 'default' });
      });
    });
  });
}

function full(): DecisionRecord {
  return decisionRecord(
    {
      id: randomUUID(),
      correlationId: randomUUID(),
      sequence: 3,
      capability: 'orders.refund',
      toolKind: 'bound',
      stage: 'rate_limit',
      disposition: 'deny',
      reason: 'a "quoted" \\ reason\n😀',
      recordedAt: new Date(Date.UTC(2026, 5, 1, 12, 0, 0, 7)),
    },
    {
      argumentsFingerprint: fingerprint(['arguments']),
      actorFingerprint: fingerprint(['actor']),
      identityMatch: true,
      rateLimitLimit: 10,
      rateLimitRemaining: 0,
      rateLimitResetAt: new Date(Date.UTC(2026, 5, 1, 12, 1, 0, 999)),
      claimAttempt: -1,
    },
  );
}

/** No stream and no facts: the record's optional fields are all absent. */
function bare(): DecisionRecord {
  return decisionRecord(
    {
      id: randomUUID(),
      correlationId: randomUUID(),
      sequence: 0,
      capability: 'orders.read',
      toolKind: 'bound',
      stage: 'execution',
      disposition: 'permit',
      reason: 'permitted',
      recordedAt: new Date(Date.UTC(2026, 0, 1)),
    },
    { identityMatch: false },
  );
}

function release() {
  return streamRelease('default', new Date(Date.UTC(2026, 1, 28, 23, 59, 59, 999)));
}

/** The write before ADR 0112. */
async function builderInsert(dataSource: DataSource, entity: object, row: object): Promise<void> {
  await dataSource
    .createQueryBuilder()
    .insert()
    .into(entity as typeof DecisionRecordEntity)
    .values(row)
    .updateEntity(false)
    .callListeners(false)
    .execute();
}

/** Every stored column of the row `id` but the id itself. */
async function stored(dataSource: DataSource, table: string, id: string): Promise<Record<string, unknown>> {
  const placeholder = dataSource.options.type === 'postgres' ? '$1' : '?';
  const [row]: Array<Record<string, unknown>> = await dataSource.query(
    `SELECT * FROM ${table} WHERE id = ${placeholder}`,
    [id],
  );
  expect(row).toBeDefined();
  const { id: _id, ...columns } = row!;
  return columns;
}
