import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { TypeOrmEvidenceRecorder, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, streamDecision, withDataSource } from '@verdict/testing-kit';
import { QueueUnlinkedEvidence1797000500000 } from '../../packages/verdict/src/typeorm/migrations/1797000500000-queue-unlinked-evidence.js';
import { QueuePendingEvidenceInATable1797012000000 } from '../../packages/verdict/src/typeorm/migrations/1797012000000-queue-pending-evidence-in-a-table.js';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };

for (const engine of databaseEngines()) {
  describe(`QueueUnlinkedEvidence migration [${engine.name}]`, () => {
    it('marks the records no link names, so the next seal links them and leaves the linked ones be; down removes the mark', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const p = (index: number) => (engine.name === 'postgres' ? `$${index}` : '?');
        const stream = `tenant:${randomUUID()}`;
        const record = (i: number) => streamDecision(stream, `refund ${i}`, new Date(Date.UTC(2026, 0, 1, 0, 0, i)));
        const migration = new QueueUnlinkedEvidence1797000500000();
        // On PostgreSQL the later migration moves the marks into a queue table; it is undone first, redone after.
        const later = new QueuePendingEvidenceInATable1797012000000();
        const queryRunner = dataSource.createQueryRunner();
        const recorder = new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' });
        try {
          // Three linked records, then two a stopped process left unlinked; the migration runs again over them.
          await recorder.recordDecisions([0, 1, 2].map(record));
          await recorder.seal();
          await recorder.recordDecisions([3, 4].map(record));
          await later.down(queryRunner);
          await migration.down(queryRunner);
          await migration.up(queryRunner);
          await later.up(queryRunner);
        } finally {
          await queryRunner.release();
        }
        const marked = async () =>
          (
            await dataSource.query(
              engine.name === 'postgres'
                ? `SELECT r.reason FROM verdict_evidence_pending q JOIN verdict_decision_records r ON r.id = q.record_id WHERE q.stream = $1 ORDER BY r.reason`
                : `SELECT reason FROM verdict_decision_records WHERE stream = ${p(1)} AND link_pending = 1 ORDER BY reason`,
              [stream],
            )
          ).map((row: { reason: string }) => row.reason);
        expect(await marked()).toEqual(['refund 3', 'refund 4']);

        expect(await recorder.seal()).toEqual({ sealed: 2, checkpoints: 0 });
        expect(await marked()).toEqual([]);
        expect((await recorder.verify()).find((v) => v.stream === stream)).toMatchObject({
          intact: true,
          records: 5,
          unsealed: 0,
        });

        // A record written after the migration is marked (PostgreSQL: queued), with nothing more sent.
        await recorder.recordDecision(record(5));
        expect(await marked()).toEqual(['refund 5']);

        const downRunner = dataSource.createQueryRunner();
        try {
          await later.down(downRunner);
          await migration.down(downRunner);
          expect(
            (await downRunner.getTable('verdict_decision_records'))?.findColumnByName('link_pending'),
          ).toBeUndefined();
          expect(
            (await downRunner.getTable('verdict_release_records'))?.findColumnByName('link_pending'),
          ).toBeUndefined();
          await migration.up(downRunner);
          await later.up(downRunner);
        } finally {
          await downRunner.release();
        }
      });
    });
  });
}
