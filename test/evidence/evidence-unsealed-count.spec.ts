import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { TypeOrmEvidenceRecorder, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, markPending, streamDecision, withDataSource } from '@verdict/testing-kit';
import type { QueryRunner } from 'typeorm';
import { IndexEvidenceStreams1797011000000 } from '../../packages/verdict/src/typeorm/migrations/1797011000000-index-evidence-streams.js';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };
const STREAM_INDEXES = [
  ['verdict_decision_records', 'idx_verdict_decision_records_stream'],
  ['verdict_release_records', 'idx_verdict_release_records_stream'],
] as const;

const indexNames = async (queryRunner: QueryRunner, table: string) =>
  ((await queryRunner.getTable(table))?.indices ?? []).map((index) => index.name);

// `verify` lists streams and counts their unlinked records through the stream index (ADR 0110); what it reports
// must not change: every unlinked record counted, whatever else is wrong with the chain.
for (const engine of databaseEngines()) {
  describe(`verify's unsealed count [${engine.name}]`, () => {
    it('counts the records no seal linked, also a record whose pending mark was cleared and a stream with no link at all', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const sealedStream = `tenant:${randomUUID()}`;
        const loneStream = `tenant:${randomUUID()}`;
        const at = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, i));
        const recorder = new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' });
        await recorder.recordDecisions([0, 1, 2].map((i) => streamDecision(sealedStream, `refund ${i}`, at(i))));
        await recorder.seal();
        // Utility: a sealed stream verifies with nothing unsealed.
        expect((await recorder.verify()).find((v) => v.stream === sealedStream)).toMatchObject({
          intact: true,
          records: 3,
          unsealed: 0,
        });

        // Attack: someone who can write the table clears the marks of two new records, so no seal links them.
        await recorder.recordDecisions([3, 4].map((i) => streamDecision(sealedStream, `refund ${i}`, at(i))));
        await recorder.recordDecision(streamDecision(loneStream, 'refund lone', at(5)));
        await markPending(dataSource, 'stream IN ($1, $2)', [sealedStream, loneStream], false);
        expect(await recorder.seal()).toMatchObject({ sealed: 0 });
        const verdicts = await recorder.verify();
        // Counted, and, out of the queue, no seal will link them: the stream fails (ADR 0163).
        expect(verdicts.find((v) => v.stream === sealedStream)).toMatchObject({
          intact: false,
          problem: 'unlinked',
          firstBadSequence: 4,
          records: 3,
          unsealed: 2,
        });
        expect(verdicts.find((v) => v.stream === loneStream)).toMatchObject({
          intact: false,
          problem: 'unlinked',
          records: 0,
          unsealed: 1,
        });
      });
    });

    it('still counts every unlinked record when an edited record stops the chain early', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const p = (index: number) => (engine.name === 'postgres' ? `$${index}` : '?');
        const stream = `tenant:${randomUUID()}`;
        const at = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, i));
        const recorder = new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' });
        await recorder.recordDecisions([0, 1, 2, 3, 4].map((i) => streamDecision(stream, `refund ${i}`, at(i))));
        await recorder.seal();
        await recorder.recordDecisions([5, 6].map((i) => streamDecision(stream, `refund ${i}`, at(i))));
        await markPending(dataSource, 'stream = $1', [stream], false);
        await dataSource.query(
          `UPDATE verdict_decision_records SET reason = ${p(1)} WHERE stream = ${p(2)} AND reason = ${p(3)}`,
          ['refund 100', stream, 'refund 1'],
        );
        const verdict = (await recorder.verify()).find((v) => v.stream === stream);
        expect(verdict).toMatchObject({ intact: false, unsealed: 2 });
      });
    });

    it('IndexEvidenceStreams drops the stream indexes on down and adds them on up; verify lists the streams either way', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const stream = `tenant:${randomUUID()}`;
        const recorder = new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' });
        await recorder.recordDecision(streamDecision(stream, 'refund 0', new Date(Date.UTC(2026, 0, 1))));
        const migration = new IndexEvidenceStreams1797011000000();
        const queryRunner = dataSource.createQueryRunner();
        try {
          await migration.down(queryRunner);
          for (const [table, index] of STREAM_INDEXES)
            expect(await indexNames(queryRunner, table)).not.toContain(index);
          expect((await recorder.verify()).find((v) => v.stream === stream)).toMatchObject({ unsealed: 1 });
          await migration.up(queryRunner);
          for (const [table, index] of STREAM_INDEXES) expect(await indexNames(queryRunner, table)).toContain(index);
        } finally {
          await queryRunner.release();
        }
        await recorder.seal();
        expect((await recorder.verify()).find((v) => v.stream === stream)).toMatchObject({
          intact: true,
          records: 1,
          unsealed: 0,
        });
      });
    });
  });
}
