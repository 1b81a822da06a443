import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { DataSource, type Logger } from 'typeorm';
import { fingerprint } from '@verdict/nestjs';
import {
  TypeOrmEvidenceRecorder,
  TypeOrmRateLimitStore,
  verdictEntities,
  verdictMigrations,
} from '@verdict/nestjs/typeorm';
import { databaseEngines, withDataSource } from '@verdict/testing-kit';
import { sampleDecision } from '../evidence/sample-decision.fixture.js';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };

// ADR 0113: the stores' statements skip TypeORM's query runners, not its logging. A DataSource's logger sees each
// one, and one slower than `maxQueryExecutionTime` as slow, as it sees TypeORM's own.
for (const engine of databaseEngines().filter(({ name }) => name !== 'sqlite')) {
  describe(`Store statements in the DataSource's logger [${engine.name}]`, () => {
    it('logs the rate limit and the evidence INSERT, and each as slow past maxQueryExecutionTime', async () => {
      await withDataSource(engine, SCHEMA, async (migrated) => {
        const { logger, logged, slow } = recordingLogger();
        const dataSource = await new DataSource({
          ...migrated.options,
          logger,
          maxQueryExecutionTime: Number.MIN_VALUE,
        }).initialize();
        try {
          await new TypeOrmRateLimitStore(dataSource).consume({
            bucketFingerprint: fingerprint(['logging', randomUUID()]),
            windowStart: new Date('2024-02-29T12:00:00.000Z'),
            windowSeconds: 60,
            limit: 1,
          });
          await new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' }).recordDecisions([sampleDecision()]);
        } finally {
          await dataSource.destroy();
        }
        const written = [/verdict_rate_limit_windows/, /^INSERT INTO \S*verdict_decision_records/];
        for (const statement of written) {
          expect(logged).toContainEqual(expect.stringMatching(statement));
          expect(slow).toContainEqual(expect.stringMatching(statement));
        }
      });
    });

    it('logs none as slow within maxQueryExecutionTime', async () => {
      await withDataSource(engine, SCHEMA, async (migrated) => {
        const { logger, slow } = recordingLogger();
        const dataSource = await new DataSource({
          ...migrated.options,
          logger,
          maxQueryExecutionTime: 60_000,
        }).initialize();
        try {
          await new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' }).recordDecisions([sampleDecision()]);
        } finally {
          await dataSource.destroy();
        }
        expect(slow).toEqual([]);
      });
    });
  });
}

/** A logger that keeps the statements logged, and those logged as slow. */
function recordingLogger() {
  const logged: string[] = [];
  const slow: string[] = [];
  const logger: Logger = {
    logQuery: (query) => void logged.push(query),
    logQuerySlow: (_time, query) => void slow.push(query),
    logQueryError: () => {},
    logSchemaBuild: () => {},
    logMigration: () => {},
    log: () => {},
  };
  return { logger, logged, slow };
}
