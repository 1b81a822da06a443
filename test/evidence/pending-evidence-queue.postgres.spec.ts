import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { EvidenceKind } from '@verdict/nestjs';
import { TypeOrmEvidenceRecorder, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, markPending, streamDecision, streamRelease, withDataSource } from '@verdict/testing-kit';
import type { DataSource } from 'typeorm';
import { QueuePendingEvidenceInATable1797012000000 } from '../../packages/verdict/src/typeorm/migrations/1797012000000-queue-pending-evidence-in-a-table.js';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };
const postgres = databaseEngines().find((engine) => engine.name === 'postgres');
const at = (second: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, second));

/** The reasons of `stream`'s queued decision records, in order. */
async function queued(dataSource: DataSource, stream: string): Promise<string[]> {
  const rows: Array<{ reason: string }> = await dataSource.query(
    `SELECT r.reason FROM verdict_evidence_pending q JOIN verdict_decision_records r ON r.id = q.record_id WHERE q.kind = 'decision' AND q.stream = $1 ORDER BY r.reason`,
    [stream],
  );
  return rows.map((row) => row.reason);
}

async function migrate(dataSource: DataSource, step: 'up' | 'down'): Promise<void> {
  const queryRunner = dataSource.createQueryRunner();
  try {
    await new QueuePendingEvidenceInATable1797012000000()[step](queryRunner);
  } finally {
    await queryRunner.release();
  }
}

const verdictOf = async (recorder: TypeOrmEvidenceRecorder, stream: string) =>
  (await recorder.verify()).find((v) => v.kind === EvidenceKind.Decision && v.stream === stream);

(postgres === undefined ? describe.skip : describe)('pending evidence queue [postgres]', () => {
  it('moves the marks into the queue, so the next seal links them; the marks and their default are gone, their index kept for an older sealer', async () => {
    await withDataSource(postgres!, SCHEMA, async (dataSource) => {
      const stream = `tenant:${randomUUID()}`;
      const recorder = new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' });
      // Three linked records, then two a stopped process left marked before the migration.
      await recorder.recordDecisions([0, 1, 2].map((i) => streamDecision(stream, `refund ${i}`, at(i))));
      await recorder.seal();
      await migrate(dataSource, 'down');
      await dataSource.query(
        `INSERT INTO verdict_decision_records (id, correlation_id, sequence, stream, capability, tool_kind, stage, disposition, reason, recorded_at) VALUES ($1, 'c3', 0, $3, 'orders.refund', 'bound', 'execution', 'permit', 'refund 3', $4), ($2, 'c4', 0, $3, 'orders.refund', 'bound', 'execution', 'permit', 'refund 4', $4)`,
        [randomUUID(), randomUUID(), stream, at(3)],
      );
      await migrate(dataSource, 'up');

      expect(await queued(dataSource, stream)).toEqual(['refund 3', 'refund 4']);
      const [{ marked }] = await dataSource.query(
        `SELECT COUNT(*) AS marked FROM verdict_decision_records WHERE link_pending IS NOT NULL`,
      );
      expect(Number(marked)).toBe(0);
      const [{ fallback }] = await dataSource.query(
        `SELECT column_default AS fallback FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'verdict_decision_records' AND column_name = 'link_pending'`,
      );
      expect(fallback).toBeNull();
      const indexes: Array<{ name: string }> = await dataSource.query(
        `SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'verdict_decision_records'`,
      );
      expect(indexes.map((index) => index.name)).toContain('idx_verdict_decision_records_link_pending');

      expect(await recorder.seal()).toEqual({ sealed: 2, checkpoints: 0 });
      expect(await queued(dataSource, stream)).toEqual([]);
      expect(await verdictOf(recorder, stream)).toMatchObject({ intact: true, records: 5, unsealed: 0 });
    });
  });

  it('queues what an older Verdict inserts (a multi-row INSERT that names no mark), and release records, for the seal to link', async () => {
    await withDataSource(postgres!, SCHEMA, async (dataSource) => {
      const stream = `tenant:${randomUUID()}`;
      await dataSource.query(
        `INSERT INTO verdict_decision_records (id, correlation_id, sequence, stream, capability, tool_kind, stage, disposition, reason, recorded_at)
         VALUES ($1, 'c1', 0, $3, 'orders.refund', 'bound', 'execution', 'permit', 'older 1', $4), ($2, 'c2', 0, $3, 'orders.refund', 'bound', 'execution', 'permit', 'older 2', $4)`,
        [randomUUID(), randomUUID(), stream, at(1)],
      );
      const recorder = new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' });
      await recorder.recordRelease(streamRelease(stream, at(2)));
      expect(await queued(dataSource, stream)).toEqual(['older 1', 'older 2']);
      const [{ releases }] = await dataSource.query(
        `SELECT COUNT(*) AS releases FROM verdict_evidence_pending WHERE kind = 'release' AND stream = $1`,
        [stream],
      );
      expect(Number(releases)).toBe(1);

      expect(await recorder.seal()).toMatchObject({ sealed: 3 });
      expect(await verdictOf(recorder, stream)).toMatchObject({ intact: true, records: 2, unsealed: 0 });
      const [{ left }] = await dataSource.query(
        `SELECT COUNT(*) AS left FROM verdict_evidence_pending WHERE stream = $1`,
        [stream],
      );
      expect(Number(left)).toBe(0);
    });
  });

  it('links the records queued behind more than a batch of rows an older sealer or a prune left (linked, or their record gone), and records edited while queued in their stream', async () => {
    await withDataSource(postgres!, SCHEMA, async (dataSource) => {
      const stream = `tenant:${randomUUID()}`;
      const recorder = new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' });
      await recorder.recordDecisions([0, 1, 2].map((i) => streamDecision(stream, `refund ${i}`, at(i))));
      await recorder.seal();
      // An older sealer linked these and cleared the mark it knew, leaving their queue rows.
      await markPending(dataSource, 'stream = $1', [stream], true);
      // A batch and more of queue rows whose records a prune deleted, queued before everything else.
      await dataSource.query(
        `INSERT INTO verdict_evidence_pending (kind, stream, recorded_at, record_id) SELECT 'decision', $1, timestamptz '2025-01-01 00:00:00+00' + i * interval '1 millisecond', 'pruned-' || i FROM generate_series(1, 600) AS s(i)`,
        [stream],
      );
      await recorder.recordDecisions([3, 4, 5, 6].map((i) => streamDecision(stream, `refund ${i}`, at(i))));
      // Two queued records edited before any seal: one moved to another stream, one to another time.
      const moved = `tenant:${randomUUID()}`;
      await dataSource.query(
        `UPDATE verdict_decision_records SET stream = $1 WHERE stream = $2 AND reason = 'refund 5'`,
        [moved, stream],
      );
      await dataSource.query(
        `UPDATE verdict_decision_records SET recorded_at = $1 WHERE stream = $2 AND reason = 'refund 6'`,
        [at(60), stream],
      );

      expect(await recorder.seal()).toEqual({ sealed: 3, checkpoints: 0 });
      // The record moved is queued in its stream now, after that seal listed the streams: the next seal links it.
      expect(await recorder.seal()).toEqual({ sealed: 1, checkpoints: 0 });
      const [{ left }] = await dataSource.query(
        `SELECT COUNT(*) AS left FROM verdict_evidence_pending WHERE stream IN ($1, $2)`,
        [stream, moved],
      );
      expect(Number(left)).toBe(0);
      expect(await verdictOf(recorder, stream)).toMatchObject({ intact: true, records: 6, unsealed: 0 });
      expect(await verdictOf(recorder, moved)).toMatchObject({ intact: true, records: 1, unsealed: 0 });
    });
  });

  it('takes a record written again after it was deleted by hand while queued: the write does not fail, the seal links it', async () => {
    await withDataSource(postgres!, SCHEMA, async (dataSource) => {
      const stream = `tenant:${randomUUID()}`;
      const recorder = new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' });
      const record = streamDecision(stream, 'refund 1', at(1));
      await recorder.recordDecision(record);
      await dataSource.query(`DELETE FROM verdict_decision_records WHERE id = $1`, [record.id]);

      await recorder.recordDecision(record);

      expect(await queued(dataSource, stream)).toEqual(['refund 1']);
      expect(await recorder.seal()).toEqual({ sealed: 1, checkpoints: 0 });
      expect(await verdictOf(recorder, stream)).toMatchObject({ intact: true, records: 1, unsealed: 0 });
    });
  });

  it('down marks the queued records again and stops queueing; up queues them once more', async () => {
    await withDataSource(postgres!, SCHEMA, async (dataSource) => {
      const stream = `tenant:${randomUUID()}`;
      const recorder = new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' });
      await recorder.recordDecisions([0, 1].map((i) => streamDecision(stream, `refund ${i}`, at(i))));
      await recorder.seal();
      await recorder.recordDecision(streamDecision(stream, 'refund 2', at(2)));
      await migrate(dataSource, 'down');

      const marked = async () =>
        (
          await dataSource.query(
            `SELECT reason FROM verdict_decision_records WHERE stream = $1 AND link_pending = 1 ORDER BY reason`,
            [stream],
          )
        ).map((row: { reason: string }) => row.reason);
      expect(await marked()).toEqual(['refund 2']);
      const [{ tables }] = await dataSource.query(
        `SELECT COUNT(*) AS tables FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'verdict_evidence_pending'`,
      );
      expect(Number(tables)).toBe(0);
      // Written as an older Verdict writes: marked by the column default again.
      await dataSource.query(
        `INSERT INTO verdict_decision_records (id, correlation_id, sequence, stream, capability, tool_kind, stage, disposition, reason, recorded_at) VALUES ($1, 'c3', 0, $2, 'orders.refund', 'bound', 'execution', 'permit', 'refund 3', $3)`,
        [randomUUID(), stream, at(3)],
      );
      expect(await marked()).toEqual(['refund 2', 'refund 3']);

      await migrate(dataSource, 'up');
      expect(await queued(dataSource, stream)).toEqual(['refund 2', 'refund 3']);
      expect(await recorder.seal()).toEqual({ sealed: 2, checkpoints: 0 });
      expect(await verdictOf(recorder, stream)).toMatchObject({ intact: true, records: 4, unsealed: 0 });
    });
  });
});
