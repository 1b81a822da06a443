import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { decisionRecord, fingerprint } from '@verdict/nestjs';
import {
  TypeOrmEvidenceQuery,
  TypeOrmEvidenceRecorder,
  verdictEntities,
  verdictMigrations,
} from '@verdict/nestjs/typeorm';
import { databaseEngines, withDataSource } from '@verdict/testing-kit';
import type { QueryRunner } from 'typeorm';
import { AddDecisionRecordActorsAndQueryIndexes1796000130000 } from '../../packages/verdict/src/typeorm/migrations/1796000130000-add-decision-record-actors-and-query-indexes.js';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };
const ADDED_DECISION_INDEXES = [
  'idx_verdict_decision_records_actor_time',
  'idx_verdict_decision_records_disposition_time',
  'idx_verdict_decision_records_stage_time',
  'idx_verdict_decision_records_time',
  'idx_verdict_decision_records_tool_call',
];

const indexNames = async (queryRunner: QueryRunner, table: string) =>
  ((await queryRunner.getTable(table))?.indices ?? []).map((index) => index.name).sort();

for (const engine of databaseEngines()) {
  describe(`AddDecisionRecordActorsAndQueryIndexes migration [${engine.name}]`, () => {
    it('drops actor_fingerprint and the query indexes on down; up adds them again and an actor filter finds its records', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const migration = new AddDecisionRecordActorsAndQueryIndexes1796000130000();
        const queryRunner = dataSource.createQueryRunner();
        try {
          await migration.down(queryRunner);
          expect(
            (await queryRunner.getTable('verdict_decision_records'))?.findColumnByName('actor_fingerprint'),
          ).toBeUndefined();
          expect(await indexNames(queryRunner, 'verdict_decision_records')).toEqual([
            'idx_verdict_decision_records_capability_time',
            'idx_verdict_decision_records_correlation',
            'idx_verdict_decision_records_link_pending',
            'idx_verdict_decision_records_stream',
          ]);
          expect(await indexNames(queryRunner, 'verdict_approval_receipts')).not.toContain(
            'idx_verdict_approval_receipts_expires_at',
          );
          await migration.up(queryRunner);
          expect(await indexNames(queryRunner, 'verdict_decision_records')).toEqual(
            [
              ...ADDED_DECISION_INDEXES,
              'idx_verdict_decision_records_capability_time',
              'idx_verdict_decision_records_correlation',
              'idx_verdict_decision_records_link_pending',
              'idx_verdict_decision_records_stream',
            ].sort(),
          );
          expect(await indexNames(queryRunner, 'verdict_approval_receipts')).toContain(
            'idx_verdict_approval_receipts_expires_at',
          );
        } finally {
          await queryRunner.release();
        }
        const actorFingerprint = fingerprint({ actor: 'customer:72', tenant: 'acme' });
        const record = decisionRecord(
          {
            id: randomUUID(),
            correlationId: randomUUID(),
            sequence: 0,
            capability: 'orders.refund',
            toolKind: 'bound',
            stage: 'proposal',
            disposition: 'deny',
            reason: 'not the owner',
            recordedAt: new Date('2031-03-01T10:00:00.000Z'),
          },
          { actorFingerprint },
        );
        await new TypeOrmEvidenceRecorder(dataSource).recordDecision(record);
        expect(await new TypeOrmEvidenceQuery(dataSource).list({ actorFingerprint })).toEqual([record]);
      });
    });
  });
}
