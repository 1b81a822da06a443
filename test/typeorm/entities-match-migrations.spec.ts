import { describe, expect, it } from '@jest/globals';
import type { DecisionRecord } from '@verdict/nestjs';
import {
  DecisionRecordEntity,
  TypeOrmEvidenceRecorder,
  verdictEntities,
  verdictMigrations,
} from '@verdict/nestjs/typeorm';
import { databaseEngines, withDataSource, type DatabaseEngine } from '@verdict/testing-kit';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };

for (const engine of databaseEngines().map(asMariaDb)) {
  describe(`verdictEntities and verdictMigrations [${engine.name}]`, () => {
    it('describe the same schema: after the migrations, TypeORM would change nothing', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const sql = await dataSource.driver.createSchemaBuilder().log();

        expect(sql.upQueries.map((query) => query.query)).toEqual([]);
      });
    });

    it('would change something once a migrated column differs from its entity (the check can fail)', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const queryRunner = dataSource.createQueryRunner();
        try {
          await queryRunner.dropColumn('verdict_trajectory_states', 'version');
        } finally {
          await queryRunner.release();
        }

        const sql = await dataSource.driver.createSchemaBuilder().log();

        expect(sql.upQueries.map((query) => query.query).join('\n')).toMatch(/verdict_trajectory_states.*version/s);
      });
    });

    it('keeps link_pending out of the record: it reads back as written, marked pending with nothing more sent', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        await new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' }).recordDecision(RECORD);

        const stored = await dataSource.getRepository(DecisionRecordEntity).findOneByOrFail({ id: RECORD.id });
        // PostgreSQL queues it by trigger (ADR 0135); the other engines mark it by the column default.
        const [{ pending }] = (await dataSource.query(
          engine.name === 'postgres'
            ? `SELECT COUNT(*) AS pending FROM verdict_evidence_pending WHERE record_id = '${RECORD.id}'`
            : `SELECT link_pending AS pending FROM verdict_decision_records WHERE id = '${RECORD.id}'`,
        )) as Array<{ pending: unknown }>;

        expect(Object.keys(stored)).not.toContain('linkPending');
        expect({ ...stored }).toEqual(RECORD);
        expect(Number(pending)).toBe(1);
      });
    });
  });
}

const RECORD: DecisionRecord = {
  id: 'dec_entities_match_migrations',
  correlationId: 'corr-1',
  sequence: 0,
  stream: 'tenant-a',
  capability: 'orders.refund',
  toolKind: 'bound',
  stage: 'execution',
  disposition: 'permit',
  reason: 'permitted',
  argumentsFingerprint: 'a'.repeat(64),
  toolCallFingerprint: null,
  actorFingerprint: 'b'.repeat(64),
  targetPolicy: null,
  targetStrategy: null,
  proposalIdentityFingerprint: null,
  executionIdentityFingerprint: null,
  identityMatch: null,
  approvalPhase: null,
  approvalOutcome: null,
  receiptFingerprint: null,
  rateLimitKeyFingerprint: null,
  rateLimitLimit: 10,
  rateLimitRemaining: 9,
  rateLimitResetAt: new Date('2024-02-29T23:59:59.987Z'),
  claimFingerprint: null,
  claimStatus: null,
  claimAttempt: null,
  recordedAt: new Date('2024-02-29T23:59:58.123Z'),
};

/** MariaDB as TypeORM's `mariadb` type: as `mysql`, TypeORM misreads MariaDB's `DEFAULT NULL` as a literal. */
function asMariaDb(engine: DatabaseEngine): DatabaseEngine {
  return engine.name === 'mariadb' && engine.url
    ? { ...engine, url: engine.url.replace(/^mysql:/, 'mariadb:') }
    : engine;
}
