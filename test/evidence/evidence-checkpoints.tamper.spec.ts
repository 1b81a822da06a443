import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import {
  ChainProblem,
  type ChainVerification,
  type CheckpointKey,
  EvidenceChainBrokenError,
  EvidenceKind,
} from '@verdict/nestjs';
import { TypeOrmEvidenceRecorder, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, markPending, streamDecision, withDataSource } from '@verdict/testing-kit';
import type { DataSource } from 'typeorm';
import { engineSql } from './chain-tampering.fixture.js';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };
const TABLE = 'verdict_decision_records';
const LINKS = 'verdict_evidence_links';
const CHECKPOINTS = 'verdict_evidence_checkpoints';
const KEY: CheckpointKey = {
  algorithm: 'hmac-sha256',
  keyId: 'checkpoint-tamper-test',
  secret: 'a secret only the application has',
};
/** Three sealed batches: records 1–4, 5–8, 9–10, so checkpoints 1, 2 and 3 pin sequences 4, 8 and 10. */
const BATCHES = [4, 4, 2];
/** When an old stream's records were recorded. */
const LONG_AGO = Date.UTC(2026, 0, 1);

for (const engine of databaseEngines()) {
  describe(`evidence checkpoint chain tamper detection [${engine.name}]`, () => {
    /** The stream of {@link BATCHES}, its records recorded a second apart from `from` (long past the last seal's grace). */
    async function setup(dataSource: DataSource, from = LONG_AGO) {
      const recorder = new TypeOrmEvidenceRecorder(dataSource, { checkpointKey: KEY, seal: 'manual' });
      const stream = `tenant:${randomUUID()}`;
      let second = 0;
      for (const size of BATCHES) {
        for (let i = 0; i < size; i++, second++)
          await recorder.recordDecision(refund(stream, `refund ${second}`, from + second * 1000));
        await recorder.seal();
      }
      /** SQL on the test database, the stream as the only parameter unless given. */
      const sql = engineSql(engine, dataSource, [stream]);
      const verdict = async (witness?: ChainVerification): Promise<ChainVerification> =>
        (await recorder.verify({ witness: witness === undefined ? undefined : [witness] })).find(
          (v) => v.kind === EvidenceKind.Decision && v.stream === stream,
        )!;
      /** Deletes the records and links after `sequence`: what an insider removes along with the checkpoints pinning them. */
      const deleteRecordsAfter = async (sequence: number) => {
        await sql(
          `DELETE FROM ${TABLE} WHERE id IN (SELECT record_id FROM ${LINKS} WHERE stream = $1 AND sequence > $2)`,
          [stream, sequence],
        );
        await sql(`DELETE FROM ${LINKS} WHERE stream = $1 AND sequence > $2`, [stream, sequence]);
      };
      /** What an insider without the key does: edit the record at `sequence` and relink from there on. */
      const editAndRelink = async (sequence: number) => {
        const [{ record_id: id }] = await sql(`SELECT record_id FROM ${LINKS} WHERE stream = $1 AND sequence = $2`, [
          stream,
          sequence,
        ]);
        await sql(`UPDATE ${TABLE} SET reason = 'nothing to see' WHERE id = $1`, [id]);
        // Handed back to the queue: left out of it, no seal links them again, and they fail `unlinked` (ADR 0163).
        const relinked = `SELECT record_id FROM ${LINKS} WHERE stream = $1 AND sequence >= ${sequence}`;
        await markPending(dataSource, `id IN (${relinked})`, [stream], true);
        await sql(`DELETE FROM ${LINKS} WHERE stream = $1 AND sequence >= $2`, [stream, sequence]);
        await new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' }).seal();
      };
      return { recorder, stream, sql, verdict, deleteRecordsAfter, editAndRelink };
    }

    it('verifies an untouched checkpoint chain and reports its head as a witness (control)', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { verdict } = await setup(dataSource);
        const intact = await verdict();
        expect(intact).toMatchObject({
          intact: true,
          problem: null,
          firstBadCheckpoint: null,
          records: 10,
          checkpoints: 3,
          checkpointHead: { checkpointSequence: 3, sequence: 10 },
        });
        expect(intact.checkpointHead!.checkpointHash).toMatch(/^[0-9a-f]{64}$/);
        expect(await verdict(intact)).toMatchObject({ intact: true });
      });
    });

    it('names a checkpoint deleted from the middle', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { sql, verdict, stream } = await setup(dataSource);
        await sql(`DELETE FROM ${CHECKPOINTS} WHERE stream = $1 AND checkpoint_sequence = 2`, [stream]);
        expect(await verdict()).toMatchObject({
          intact: false,
          problem: ChainProblem.CheckpointMissing,
          firstBadCheckpoint: 2,
          firstBadSequence: 5,
          verifiedThrough: 4,
        });
      });
    });

    it('names the first checkpoint when the chain of checkpoints lost its beginning without a prune anchor', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { sql, verdict, stream } = await setup(dataSource);
        await sql(`DELETE FROM ${CHECKPOINTS} WHERE stream = $1 AND checkpoint_sequence = 1`, [stream]);
        expect(await verdict()).toMatchObject({
          intact: false,
          problem: ChainProblem.CheckpointMissing,
          firstBadCheckpoint: 1,
          firstBadSequence: 1,
        });
      });
    });

    it('names a checkpoint whose predecessor hash was replaced', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { sql, verdict, stream } = await setup(dataSource);
        await sql(
          `UPDATE ${CHECKPOINTS} SET previous_checkpoint_hash = $1 WHERE stream = $2 AND checkpoint_sequence = 2`,
          ['f'.repeat(64), stream],
        );
        expect(await verdict()).toMatchObject({
          intact: false,
          problem: ChainProblem.CheckpointBrokenLink,
          firstBadCheckpoint: 2,
          firstBadSequence: 5,
        });
      });
    });

    it('names the first of two reordered checkpoints', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { sql, verdict, stream } = await setup(dataSource);
        const move = (from: number, to: number) =>
          sql(`UPDATE ${CHECKPOINTS} SET checkpoint_sequence = $1 WHERE stream = $2 AND checkpoint_sequence = $3`, [
            to,
            stream,
            from,
          ]);
        await move(1, -1);
        await move(2, 1);
        await move(-1, 2);
        expect(await verdict()).toMatchObject({
          intact: false,
          problem: ChainProblem.CheckpointBrokenLink,
          firstBadCheckpoint: 1,
          firstBadSequence: 1,
        });
      });
    });

    it('names a validly signed checkpoint copied into the middle of the chain', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { sql, verdict, stream } = await setup(dataSource);
        // Make room at 2 (two steps, so the unique index never sees a duplicate), then copy checkpoint 1 there.
        await sql(
          `UPDATE ${CHECKPOINTS} SET checkpoint_sequence = checkpoint_sequence + 100 WHERE stream = $1 AND checkpoint_sequence >= 2`,
        );
        await sql(
          `UPDATE ${CHECKPOINTS} SET checkpoint_sequence = checkpoint_sequence - 99 WHERE stream = $1 AND checkpoint_sequence >= 100`,
        );
        await sql(
          `INSERT INTO ${CHECKPOINTS} (id, kind, stream, sequence, hash, checkpoint_sequence, previous_checkpoint_hash, purpose, algorithm, key_id, signature, created_at) SELECT $1, kind, stream, sequence, hash, 2, previous_checkpoint_hash, purpose, algorithm, key_id, signature, created_at FROM ${CHECKPOINTS} WHERE stream = $2 AND checkpoint_sequence = 1`,
          [randomUUID(), stream],
        );
        // Its signature covers its checkpoint sequence (1), so the copy at 2 fails it where it pins (4) ...
        expect(await verdict()).toMatchObject({
          intact: false,
          problem: ChainProblem.CheckpointSignature,
          firstBadCheckpoint: 2,
          firstBadSequence: 4,
        });
        // ... and a verifier without the key still sees it break the checkpoint chain.
        const unkeyed = await new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' }).verify();
        expect(unkeyed.find((v) => v.stream === stream)).toMatchObject({
          intact: false,
          problem: ChainProblem.CheckpointBrokenLink,
          firstBadCheckpoint: 2,
          firstBadSequence: 5,
        });
      });
    });

    it('names the latest checkpoint deleted with the records after the previous one, against a witness', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { sql, verdict, stream, deleteRecordsAfter } = await setup(dataSource);
        const witness = await verdict();
        await sql(`DELETE FROM ${CHECKPOINTS} WHERE stream = $1 AND checkpoint_sequence = 3`, [stream]);
        await deleteRecordsAfter(8);
        // Without a witness the cut-back chain is indistinguishable from the chain as it was after the second seal.
        expect(await verdict()).toMatchObject({ intact: true, checkpointHead: { checkpointSequence: 2 } });
        expect(await verdict(witness)).toMatchObject({
          intact: false,
          problem: ChainProblem.CheckpointRolledBack,
          firstBadCheckpoint: 3,
          firstBadSequence: 9,
          verifiedThrough: 8,
        });
      });
    });

    it('names the latest checkpoint replaced by a re-sealed one, against a witness', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { recorder, sql, verdict, stream, deleteRecordsAfter } = await setup(dataSource);
        const witness = await verdict();
        // The insider cuts back to checkpoint 2 and lets the application's next seal sign a new tail at 3.
        await sql(`DELETE FROM ${CHECKPOINTS} WHERE stream = $1 AND checkpoint_sequence = 3`, [stream]);
        await deleteRecordsAfter(8);
        await recorder.recordDecision(refund(stream, 'a different tail', Date.UTC(2026, 0, 1, 0, 1, 0)));
        await recorder.seal();
        expect(await verdict()).toMatchObject({ intact: true, checkpointHead: { checkpointSequence: 3, sequence: 9 } });
        expect(await verdict(witness)).toMatchObject({
          intact: false,
          problem: ChainProblem.CheckpointRolledBack,
          firstBadCheckpoint: 3,
          firstBadSequence: 9,
        });
      });
    });

    it('names a stream deleted whole, against a witness', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { sql, verdict, stream, deleteRecordsAfter } = await setup(dataSource);
        const witness = await verdict();
        await deleteRecordsAfter(0);
        await sql(`DELETE FROM ${CHECKPOINTS} WHERE stream = $1`, [stream]);
        expect(await verdict(witness)).toMatchObject({
          stream,
          intact: false,
          problem: ChainProblem.CheckpointRolledBack,
          firstBadCheckpoint: 3,
          firstBadSequence: 1,
        });
      });
    });

    it('verifies a legitimately pruned chain, against a witness taken before the prune (control)', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { recorder, verdict } = await setup(dataSource);
        const witness = await verdict();
        // Records 1–6 were recorded before second 6: the anchor is at 6, the head checkpoint pins 10 again.
        expect(await recorder.prune(new Date(Date.UTC(2026, 0, 1, 0, 0, 6)))).toEqual({ pruned: 6, anchored: 1 });
        const pruned = await verdict();
        expect(pruned).toMatchObject({
          intact: true,
          records: 4,
          verifiedThrough: 10,
          checkpoints: 2,
          checkpointHead: { checkpointSequence: 5, sequence: 10 },
        });
        expect(await verdict(witness)).toMatchObject({ intact: true });
        // Later seals keep chaining checkpoints after the anchor.
        await recorder.recordDecision(refund(witness.stream, 'after the prune', Date.UTC(2026, 0, 1, 0, 1, 0)));
        await recorder.seal();
        expect(await verdict(pruned)).toMatchObject({
          intact: true,
          verifiedThrough: 11,
          checkpointHead: { checkpointSequence: 6, sequence: 11 },
        });
      });
    });

    it('accepts a pruned prefix only through its signed anchor', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { recorder, sql, verdict, stream } = await setup(dataSource);
        await recorder.prune(new Date(Date.UTC(2026, 0, 1, 0, 0, 6)));
        await sql(`DELETE FROM ${CHECKPOINTS} WHERE stream = $1 AND purpose = 'prune'`, [stream]);
        // Without the anchor, both chains start over at 1: checkpoint 1 and record 1 are gone.
        expect(await verdict()).toMatchObject({
          intact: false,
          problem: ChainProblem.CheckpointMissing,
          firstBadCheckpoint: 1,
          firstBadSequence: 1,
        });
      });
    });

    it('accepts no prefix deleted by hand, records and checkpoints alike', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { sql, verdict, stream } = await setup(dataSource);
        await sql(
          `DELETE FROM ${TABLE} WHERE id IN (SELECT record_id FROM ${LINKS} WHERE stream = $1 AND sequence <= 4)`,
        );
        await sql(`DELETE FROM ${LINKS} WHERE stream = $1 AND sequence <= 4`);
        await sql(`DELETE FROM ${CHECKPOINTS} WHERE stream = $1 AND checkpoint_sequence = 1`, [stream]);
        expect(await verdict()).toMatchObject({ intact: false, firstBadSequence: 1 });
      });
    });

    describe('what a routine seal or prune must not absorb', () => {
      /** The records of the links after `sequence`, as SQL selecting their ids. */
      const linkedAfter = (sequence: number) =>
        `SELECT record_id FROM ${LINKS} WHERE stream = $1 AND sequence > ${sequence}`;
      const at = (second: number) => new Date(LONG_AGO + second * 1000);

      it('refuses to seal records rewritten and unlinked under a sequence an earlier checkpoint pins, and names them, also against a witness', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const { recorder, sql, verdict, stream } = await setup(dataSource);
          const witness = await verdict();
          // The insider rewrites records 9–10 and hands them back to the seal, to link them again and sign.
          await sql(`UPDATE ${TABLE} SET reason = 'forged' WHERE id IN (${linkedAfter(8)})`);
          await markPending(dataSource, `id IN (${linkedAfter(8)})`, [stream], true);
          await sql(`DELETE FROM ${LINKS} WHERE stream = $1 AND sequence > 8`);
          // The head (8) is before the last checkpoint (10): the seal links nothing after it and signs nothing.
          await expect(recorder.seal()).rejects.toMatchObject({
            refused: 'seal',
            broken: [{ stream, problem: ChainProblem.Truncated, firstBadSequence: 9 }],
          });
          for (const after of [await verdict(), await verdict(witness)])
            expect(after).toMatchObject({ intact: false, problem: ChainProblem.Truncated, firstBadSequence: 9 });
        });
      });

      it('prunes nothing while a stream does not verify: neither an edit nor records deleted after the cutoff', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          for (const tamper of ['edit', 'delete'] as const) {
            const { recorder, sql, verdict, editAndRelink, stream } = await setup(dataSource);
            if (tamper === 'edit') await editAndRelink(6);
            else
              await sql(
                `DELETE FROM ${TABLE} WHERE id IN (SELECT record_id FROM ${LINKS} WHERE stream = $1 AND sequence BETWEEN 4 AND 6)`,
              );
            const broken = await verdict();
            expect(broken.intact).toBe(false);
            const count = async () =>
              (await sql(`SELECT COUNT(*) AS n FROM ${TABLE} WHERE stream = $1`, [stream])).map((row) => Number(row.n));
            const before = await count();
            await expect(recorder.prune(at(3))).rejects.toBeInstanceOf(EvidenceChainBrokenError);
            expect(await verdict()).toMatchObject({
              problem: broken.problem,
              firstBadSequence: broken.firstBadSequence,
            });
            expect(await count()).toEqual(before);
            await sql(`DELETE FROM ${TABLE} WHERE stream = $1`, [stream]);
            await sql(`DELETE FROM ${LINKS} WHERE stream = $1`, [stream]);
            await sql(`DELETE FROM ${CHECKPOINTS} WHERE stream = $1`, [stream]);
          }
        });
      });

      it('names a record linked at or below the start of the chain, where the chain is not read', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const { recorder, sql, verdict, stream } = await setup(dataSource);
          expect(await recorder.prune(at(3))).toMatchObject({ pruned: 3 });
          for (const sequence of [0, 2]) {
            await recorder.recordDecision(refund(stream, `forged at ${sequence}`, LONG_AGO + 60_000));
            const [{ id }] = await sql(`SELECT id FROM ${TABLE} WHERE stream = $1 AND reason = $2`, [
              stream,
              `forged at ${sequence}`,
            ]);
            await sql(
              `INSERT INTO ${LINKS} (kind, stream, sequence, record_id, previous_hash, hash) VALUES ('decision', $1, $2, $3, $4, $5)`,
              [stream, sequence, id, '0'.repeat(64), '0'.repeat(64)],
            );
            await markPending(dataSource, 'id = $1', [id], false);
            expect(await verdict()).toMatchObject({
              intact: false,
              problem: ChainProblem.BrokenLink,
              firstBadSequence: sequence,
            });
            await sql(`DELETE FROM ${LINKS} WHERE stream = $1 AND sequence = $2`, [stream, sequence]);
          }
        });
      });
    });

    describe('links no checkpoint pins (ADR 0048)', () => {
      it('names a chain whose every checkpoint was deleted and whose edited records were relinked without the key', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const { sql, verdict, editAndRelink, stream } = await setup(dataSource);
          await sql(`DELETE FROM ${CHECKPOINTS} WHERE stream = $1`);
          await editAndRelink(3);

          expect(await verdict()).toMatchObject({
            intact: false,
            problem: ChainProblem.Unpinned,
            firstBadSequence: 1,
            verifiedThrough: 0,
            checkpoints: 0,
            checkpointHead: null,
          });
          // Without the key the hashes are all there is, and they were recomputed: the documented limit.
          const unkeyed = await new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' }).verify();
          expect(unkeyed.find((v) => v.stream === stream)).toMatchObject({ intact: true });
        });
      });

      it('names records relinked after the latest checkpoints were deleted', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const { sql, verdict, editAndRelink } = await setup(dataSource);
          await sql(`DELETE FROM ${CHECKPOINTS} WHERE stream = $1 AND checkpoint_sequence >= 2`);
          await editAndRelink(6);

          expect(await verdict()).toMatchObject({
            intact: false,
            problem: ChainProblem.Unpinned,
            firstBadSequence: 5,
            verifiedThrough: 4,
            checkpoints: 1,
          });
        });
      });

      it('verifies a freshly sealed stream whose last checkpoint is not written yet, within the grace (control)', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const { recorder, sql, verdict } = await setup(dataSource, Date.now());
          expect(await verdict()).toMatchObject({ intact: true, checkpoints: 3 });
          // A sealer that died between its links and its checkpoint (MySQL/MariaDB: separate statements).
          await sql(`DELETE FROM ${CHECKPOINTS} WHERE stream = $1 AND checkpoint_sequence = 3`);
          expect(await verdict()).toMatchObject({
            intact: true,
            records: 10,
            checkpoints: 2,
            checkpointHead: { checkpointSequence: 2, sequence: 8 },
          });
          // The next seal signs the head it left unsigned.
          expect(await recorder.seal()).toEqual({ sealed: 0, checkpoints: 1 });
          expect(await verdict()).toMatchObject({
            intact: true,
            checkpointHead: { checkpointSequence: 3, sequence: 10 },
          });
          expect(await recorder.seal()).toEqual({ sealed: 0, checkpoints: 0 });
        });
      });

      it('pins links written before the key was configured at the next seal with it (control)', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const stream = `tenant:${randomUUID()}`;
          const unkeyed = new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' });
          for (let i = 0; i < 3; i++) await unkeyed.recordDecision(refund(stream, `refund ${i}`, LONG_AGO + i * 1000));
          await unkeyed.seal();
          const keyed = new TypeOrmEvidenceRecorder(dataSource, { checkpointKey: KEY, seal: 'manual' });
          const verdict = async () => (await keyed.verify()).find((v) => v.stream === stream)!;

          expect(await verdict()).toMatchObject({ intact: false, problem: ChainProblem.Unpinned, firstBadSequence: 1 });
          expect(await keyed.seal()).toEqual({ sealed: 0, checkpoints: 1 });
          expect(await verdict()).toMatchObject({
            intact: true,
            checkpointHead: { checkpointSequence: 1, sequence: 3 },
          });
        });
      });
    });
  });
}

/** A permitted refund's execution record in `stream`. */
function refund(stream: string, reason: string, at: number) {
  return streamDecision(stream, reason, new Date(at));
}
