import { describe, expect, it } from '@jest/globals';
import { InMemoryEvidenceRecorder, OuterTransactionError, type DecisionRecord } from '@verdict/nestjs';
import type { DataSource, QueryRunner } from 'typeorm';
import { describeEvidenceRecorderContract } from '@verdict/nestjs/testing';
import {
  DecisionRecordEntity,
  ReleaseRecordEntity,
  TypeOrmEvidenceRecorder,
  verdictEntities,
  verdictMigrations,
} from '@verdict/nestjs/typeorm';
import { sampleDecision } from './sample-decision.fixture.js';
import { databaseEngines, dropDataSource, openDataSource, remigrate, withDataSource } from '@verdict/testing-kit';
import type { DatabaseEngine } from '@verdict/testing-kit';
import { CreateDecisionRecords1795987325470 } from '../../packages/verdict/src/typeorm/migrations/1795987325470-create-decision-records.js';
import { AddDecisionRecordActorsAndQueryIndexes1796000130000 } from '../../packages/verdict/src/typeorm/migrations/1796000130000-add-decision-record-actors-and-query-indexes.js';
import { AddEvidenceChains1796000131000 } from '../../packages/verdict/src/typeorm/migrations/1796000131000-add-evidence-chains.js';

const TABLE = 'verdict_decision_records';
const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };

describeEvidenceRecorderContract('memory', async () => {
  const recorder = new InMemoryEvidenceRecorder();
  return {
    recorder,
    read: async (correlationId) => recorder.decisions().filter((record) => record.correlationId === correlationId),
    readReleases: async (correlationId) =>
      recorder.releases().filter((record) => record.correlationId === correlationId),
    close: async () => {},
  };
});

for (const engine of databaseEngines()) {
  describeEvidenceRecorderContract(engine.name, async () => {
    const dataSource = await openDataSource(engine, SCHEMA);
    const recorder = new TypeOrmEvidenceRecorder(dataSource);
    return {
      recorder,
      read: (correlationId) => readRecords(dataSource, correlationId),
      storedRows: (correlationId) =>
        dataSource
          .createQueryBuilder()
          .select('*')
          .from(DecisionRecordEntity, 'r')
          .where('r.correlation_id = :correlationId', { correlationId })
          .getRawMany(),
      readReleases: async (correlationId) =>
        (await dataSource.getRepository(ReleaseRecordEntity).find({ where: { correlationId } })).map((row) => ({
          ...row,
        })),
      storedReleaseRows: (correlationId) =>
        dataSource
          .createQueryBuilder()
          .select('*')
          .from(ReleaseRecordEntity, 'r')
          .where('r.correlation_id = :correlationId', { correlationId })
          .getRawMany(),
      close: async () => {
        await recorder.whenSealed();
        await dropDataSource(dataSource);
      },
    };
  });

  describe(`TypeOrmEvidenceRecorder [${engine.name}]`, () => {
    it('stores only the declared fields of a record that carries more', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const record = sampleDecision();
        const overloaded = { ...record, arguments: { cardNumber: '4111111111111111' }, toolCallId: 'call_raw_id' };
        await new TypeOrmEvidenceRecorder(dataSource).recordDecision(overloaded);

        const rows = await dataSource.createQueryBuilder().select('*').from(DecisionRecordEntity, 'r').getRawMany();
        expect(rows).toHaveLength(1);
        expect(JSON.stringify(rows)).not.toMatch(/4111111111111111|call_raw_id/);
        expect(await readRecords(dataSource, record.correlationId)).toEqual([record]);
      });
    });

    it('stores recorded_at as UTC, to the millisecond, in the database itself', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const record = sampleDecision();
        await new TypeOrmEvidenceRecorder(dataSource).recordDecision(record);

        const [row] = await dataSource.query(utcTextQuery(engine), [record.id]);
        expect(row.utc).toBe('2024-02-29 23:59:59.987');
      });
    });

    it('refuses a record it could not hash when it is written, as the in-memory recorder does; the next one is linked', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const recorder = new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' });
        // Text an application supplied (its target policy's name) with a lone surrogate. (A reason is made storable
        // instead: a lone surrogate there is written as U+FFFD, docs/evidence.md.)
        const unhashable = { ...sampleDecision(), targetPolicy: 'lone \uD800 surrogate' };
        await expect(recorder.recordDecision(unhashable)).rejects.toThrow('lone surrogate');
        await expect(recorder.recordDecisions([sampleDecision(), unhashable])).rejects.toThrow('lone surrogate');
        expect(await readRecords(dataSource, unhashable.correlationId)).toEqual([]);

        // Control: nothing of the refused writes is left to hold back a seal; a plain record is written and linked.
        const plain = sampleDecision();
        await recorder.recordDecision(plain);
        await expect(recorder.seal()).resolves.toMatchObject({ sealed: 1 });
        expect(await recorder.verify()).toEqual([expect.objectContaining({ intact: true, records: 1, unsealed: 0 })]);
      });
    });

    it('rejects a write the database refuses, so the pipeline can stop the action', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const recorder = new TypeOrmEvidenceRecorder(dataSource);
        const record = sampleDecision();
        await recorder.recordDecision(record);

        await expect(recorder.recordDecision({ ...record, reason: 'same id again' })).rejects.toThrow();
        expect(await readRecords(dataSource, record.correlationId)).toEqual([record]);
      });
    });

    if (engine.name === 'sqlite') {
      it('refuses to write inside an open application transaction, whose rollback would take the records with it', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const recorder = new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' });
          const inside = sampleDecision();
          const queryRunner = dataSource.createQueryRunner();
          await queryRunner.startTransaction();
          try {
            await expect(recorder.recordDecision(inside)).rejects.toThrow(OuterTransactionError);
          } finally {
            await queryRunner.rollbackTransaction();
            await queryRunner.release();
          }
          expect(await readRecords(dataSource, inside.correlationId)).toEqual([]);

          const outside = sampleDecision();
          await recorder.recordDecision(outside);
          expect(await readRecords(dataSource, outside.correlationId)).toEqual([outside]);
        });
      });
    } else {
      it('keeps its records when an application transaction on the same DataSource rolls back', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const recorder = new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' });
          const record = sampleDecision();
          const queryRunner = dataSource.createQueryRunner();
          await queryRunner.startTransaction();
          try {
            await recorder.recordDecision(record);
          } finally {
            await queryRunner.rollbackTransaction();
            await queryRunner.release();
          }
          expect(await readRecords(dataSource, record.correlationId)).toEqual([record]);
        });
      });
    }
  });

  describe(`CreateDecisionRecords migration [${engine.name}]`, () => {
    it('drops the table on down, and up creates it again with its indexes', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        // The later migrations change this table: undo them newest first, then redo them, as a rollback and replay would.
        const chains = new AddEvidenceChains1796000131000();
        await onOwnRunner(dataSource, (queryRunner) => chains.down(queryRunner));
        const actors = new AddDecisionRecordActorsAndQueryIndexes1796000130000();
        await onOwnRunner(dataSource, (queryRunner) => actors.down(queryRunner));
        const table = await remigrate(dataSource, new CreateDecisionRecords1795987325470(), TABLE);
        expect(table.indices.map((index) => index.name).sort()).toEqual([
          'idx_verdict_decision_records_capability_time',
          'idx_verdict_decision_records_correlation',
        ]);
        await onOwnRunner(dataSource, (queryRunner) => actors.up(queryRunner));
        await onOwnRunner(dataSource, (queryRunner) => chains.up(queryRunner));
        const record = sampleDecision();
        await new TypeOrmEvidenceRecorder(dataSource).recordDecision(record);
        expect(await readRecords(dataSource, record.correlationId)).toEqual([record]);
      });
    });
  });
}

async function onOwnRunner(dataSource: DataSource, run: (queryRunner: QueryRunner) => Promise<void>): Promise<void> {
  const queryRunner = dataSource.createQueryRunner();
  try {
    await run(queryRunner);
  } finally {
    await queryRunner.release();
  }
}

async function readRecords(dataSource: DataSource, correlationId: string): Promise<DecisionRecord[]> {
  const rows = await dataSource
    .getRepository(DecisionRecordEntity)
    .find({ where: { correlationId }, order: { sequence: 'ASC' } });
  return rows.map((row) => ({ ...row }));
}

/** The stored recorded_at as the database's own UTC text, 'YYYY-MM-DD HH:MM:SS.mmm'. */
function utcTextQuery(engine: DatabaseEngine): string {
  switch (engine.name) {
    case 'sqlite':
      return `SELECT recorded_at AS utc FROM ${TABLE} WHERE id = ?`;
    case 'postgres':
      return `SELECT to_char(recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS') AS utc FROM ${TABLE} WHERE id = $1`;
    case 'mariadb':
      return `SELECT LEFT(DATE_FORMAT(recorded_at, '%Y-%m-%d %H:%i:%s.%f'), 23) AS utc FROM ${TABLE} WHERE id = ?`;
  }
}
