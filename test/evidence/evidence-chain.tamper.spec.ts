import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { ChainProblem, type ChainVerification, chainHash, type CheckpointKey, EvidenceKind } from '@verdict/nestjs';
import { TypeOrmEvidenceRecorder, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, markPending, streamDecision, withDataSource } from '@verdict/testing-kit';
import type { DataSource } from 'typeorm';
import { engineSql } from './chain-tampering.fixture.js';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };
const TABLE = 'verdict_decision_records';
const LINKS = 'verdict_evidence_links';
const KEY: CheckpointKey = {
  algorithm: 'hmac-sha256',
  keyId: 'tamper-test',
  secret: 'a secret only the application has',
};
const RECORDS = 10;

for (const engine of databaseEngines()) {
  describe(`evidence chain tamper detection [${engine.name}]`, () => {
    /** A stream of ten sealed decision records (one signed checkpoint at 10), and SQL on its rows. */
    async function setup(dataSource: DataSource) {
      const recorder = new TypeOrmEvidenceRecorder(dataSource, { checkpointKey: KEY, seal: 'manual' });
      const stream = `tenant:${randomUUID()}`;
      for (let i = 0; i < RECORDS; i++)
        await recorder.recordDecision(refund(stream, `refund ${i}`, Date.UTC(2026, 0, 1, 0, 0, i), i));
      await recorder.seal();
      /** SQL on the test database, the stream as the only parameter unless given. */
      const sql = engineSql(engine, dataSource, [stream]);
      const verdict = async (): Promise<ChainVerification> =>
        (await recorder.verify()).find((v) => v.kind === EvidenceKind.Decision && v.stream === stream)!;
      /** The id of the record linked at `sequence`. */
      const idAt = async (sequence: number): Promise<string> =>
        String(
          (await sql(`SELECT record_id FROM ${LINKS} WHERE stream = $1 AND sequence = $2`, [stream, sequence]))[0]
            .record_id,
        );
      /** A permitted refund's record written straight into the table, as one with database access would: no link. */
      const forge = async (reason: string, second: number, millisecond: number) => {
        const forged = refund(stream, reason, Date.UTC(2026, 0, 1, 0, 0, second, millisecond), null);
        const at = `2026-01-01 00:00:${String(second).padStart(2, '0')}.${String(millisecond).padStart(3, '0')}`;
        await sql(
          `INSERT INTO ${TABLE} (stream, id, correlation_id, sequence, capability, tool_kind, stage, disposition, reason, recorded_at) VALUES ($1, $2, $3, 0, 'orders.refund', 'bound', 'execution', 'permit', $4, $5)`,
          [stream, forged.id, forged.correlationId, reason, engine.name === 'sqlite' ? at : forged.recordedAt],
        );
        return forged;
      };
      return { recorder, stream, sql, verdict, idAt, forge };
    }

    it('verifies an untouched chain, its checkpoint signature included (control)', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { verdict } = await setup(dataSource);
        expect(await verdict()).toMatchObject({
          intact: true,
          firstBadSequence: null,
          records: RECORDS,
          verifiedThrough: RECORDS,
          checkpoints: 1,
          signaturesChecked: true,
        });
      });
    });

    it('names a modified record', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { sql, verdict, idAt } = await setup(dataSource);
        await sql(`UPDATE ${TABLE} SET reason = 'nothing to see' WHERE id = $1`, [await idAt(4)]);
        expect(await verdict()).toMatchObject({ intact: false, firstBadSequence: 4, problem: ChainProblem.Modified });
      });
    });

    it('names a deleted record, and a deleted link', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { sql, verdict, idAt } = await setup(dataSource);
        await sql(`DELETE FROM ${LINKS} WHERE stream = $1 AND sequence = 7`);
        expect(await verdict()).toMatchObject({ intact: false, firstBadSequence: 7, problem: ChainProblem.Missing });
        await sql(`DELETE FROM ${TABLE} WHERE id = $1`, [await idAt(5)]);
        expect(await verdict()).toMatchObject({ intact: false, firstBadSequence: 5, problem: ChainProblem.Missing });
      });
    });

    it('names a deleted tail through the signed checkpoint', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { sql, verdict } = await setup(dataSource);
        await sql(`DELETE FROM ${LINKS} WHERE stream = $1 AND sequence >= 9`);
        expect(await verdict()).toMatchObject({ intact: false, firstBadSequence: 9, problem: ChainProblem.Truncated });
      });
    });

    it('names the record after one inserted with a correctly recomputed hash', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { sql, verdict, stream, forge } = await setup(dataSource);
        // Make room at 6 (two steps, so the primary key never sees a duplicate), then forge a record there.
        await sql(`UPDATE ${LINKS} SET sequence = sequence + 100 WHERE stream = $1 AND sequence >= 6`);
        await sql(`UPDATE ${LINKS} SET sequence = sequence - 99 WHERE stream = $1 AND sequence >= 100`);
        const [five] = await sql(`SELECT hash FROM ${LINKS} WHERE stream = $1 AND sequence = 5`);
        const forged = await forge('forged refund', 5, 500);
        const link = { sequence: 6, previousHash: String(five.hash) };
        await sql(
          `INSERT INTO ${LINKS} (kind, stream, sequence, record_id, previous_hash, hash) VALUES ('decision', $1, 6, $2, $3, $4)`,
          [stream, forged.id, link.previousHash, chainHash(EvidenceKind.Decision, forged, link)],
        );
        expect(await verdict()).toMatchObject({ intact: false, firstBadSequence: 7, problem: ChainProblem.BrokenLink });
      });
    });

    it('names a record slipped in between two links at a fractional sequence', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { sql, verdict, stream, forge } = await setup(dataSource);
        const [three] = await sql(`SELECT hash FROM ${LINKS} WHERE stream = $1 AND sequence = 3`);
        const forged = await forge('approved by operator:1', 3, 500);
        // SQLite keeps 3.5 in the integer column; PostgreSQL and MariaDB refuse it or store a whole number, which
        // the primary key refuses beside the link already there.
        const inserted = await sql(
          `INSERT INTO ${LINKS} (kind, stream, sequence, record_id, previous_hash, hash) VALUES ('decision', $1, 3.5, $2, $3, $4)`,
          [stream, forged.id, String(three.hash), 'f'.repeat(64)],
        ).then(
          () => true,
          () => false,
        );
        if (!inserted) return expect(engine.name).not.toBe('sqlite');
        expect(await verdict()).toMatchObject({ intact: false, problem: ChainProblem.BrokenLink });
      });
    });

    it('names the first of two reordered records', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { sql, verdict } = await setup(dataSource);
        await sql(`UPDATE ${LINKS} SET sequence = -3 WHERE stream = $1 AND sequence = 3`);
        await sql(`UPDATE ${LINKS} SET sequence = 3 WHERE stream = $1 AND sequence = 4`);
        await sql(`UPDATE ${LINKS} SET sequence = 4 WHERE stream = $1 AND sequence = -3`);
        expect(await verdict()).toMatchObject({ intact: false, firstBadSequence: 3, problem: ChainProblem.BrokenLink });
      });
    });

    it('catches a chain rewritten with recomputed hashes at its signed checkpoint', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { sql, verdict, idAt, stream } = await setup(dataSource);
        // The attacker edits record 4 and relinks 4..10 without the key, so that every hash matches again.
        await sql(`UPDATE ${TABLE} SET reason = 'rewritten' WHERE id = $1`, [await idAt(4)]);
        await sql(`DELETE FROM ${LINKS} WHERE stream = $1 AND sequence >= 4`);
        await markPending(dataSource, 'stream = $1', [stream], true);
        await new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' }).seal();
        expect(await verdict()).toMatchObject({
          intact: false,
          firstBadSequence: 10,
          problem: ChainProblem.CheckpointMismatch,
        });
      });
    });

    it('names a checkpoint whose signature was replaced', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { sql, verdict, stream } = await setup(dataSource);
        await sql(`UPDATE verdict_evidence_checkpoints SET signature = $1 WHERE stream = $2`, [
          Buffer.alloc(32, 7).toString('base64'),
          stream,
        ]);
        expect(await verdict()).toMatchObject({
          intact: false,
          firstBadSequence: 10,
          problem: ChainProblem.CheckpointSignature,
        });
      });
    });
  });
}

/** A permitted refund's execution record in `stream`. */
function refund(stream: string, reason: string, at: number, claimAttempt: number | null) {
  return streamDecision(stream, reason, new Date(at), {
    facts: claimAttempt === null ? {} : { identityMatch: true, claimAttempt },
  });
}
