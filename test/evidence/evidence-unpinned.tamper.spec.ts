import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import {
  ChainProblem,
  type ChainVerification,
  type CheckpointKey,
  decisionRecord,
  EvidenceKind,
} from '@verdict/nestjs';
import { TypeOrmEvidenceRecorder, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, withDataSource } from '@verdict/testing-kit';
import type { DataSource } from 'typeorm';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };
const TABLE = 'verdict_decision_records';
const LINKS = 'verdict_evidence_links';
const CHECKPOINTS = 'verdict_evidence_checkpoints';
const KEY: CheckpointKey = {
  algorithm: 'hmac-sha256',
  keyId: 'unpinned-tamper-test',
  secret: 'a secret only the application has',
};
/** Three sealed batches: records 1–4, 5–8, 9–10, so checkpoints 1, 2 and 3 pin sequences 4, 8 and 10. */
const BATCHES = [4, 4, 2];
/** When the records of an old stream were recorded: long past the last seal's grace. */
const LONG_AGO = Date.UTC(2026, 0, 1);

for (const engine of databaseEngines()) {
  describe(`evidence links no checkpoint pins [${engine.name}]`, () => {
    /** A keyed stream sealed in {@link BATCHES}, its records recorded from `from` on (a second apart). */
    async function setup(dataSource: DataSource, from = LONG_AGO) {
      const recorder = new TypeOrmEvidenceRecorder(dataSource, { checkpointKey: KEY, seal: 'manual' });
      const stream = `tenant:${randomUUID()}`;
      let second = 0;
      for (const size of BATCHES) {
        for (let i = 0; i < size; i++, second++)
          await recorder.recordDecision(refund(stream, `refund ${second}`, from + second * 1000));
        await recorder.seal();
      }
      const p = (index: number) => (engine.name === 'postgres' ? `$${index}` : '?');
      const sql = (text: string, parameters: unknown[] = [stream]) =>
        dataSource.query(
          text.replaceAll(/\$(\d)/g, (_, index: string) => p(Number(index))),
          parameters,
        );
      const verdict = async (): Promise<ChainVerification> =>
        (await recorder.verify()).find((v) => v.kind === EvidenceKind.Decision && v.stream === stream)!;
      /** What an insider without the key does: edit the record at `sequence` and relink from there on. */
      const editAndRelink = async (sequence: number) => {
        const [{ record_id: id }] = await sql(`SELECT record_id FROM ${LINKS} WHERE stream = $1 AND sequence = $2`, [
          stream,
          sequence,
        ]);
        await sql(`UPDATE ${TABLE} SET reason = 'nothing to see' WHERE id = $1`, [id]);
        await sql(`DELETE FROM ${LINKS} WHERE stream = $1 AND sequence >= $2`, [stream, sequence]);
        await new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' }).seal();
      };
      return { recorder, stream, sql, verdict, editAndRelink };
    }

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
        expect(await verdict()).toMatchObject({ intact: true, checkpointHead: { checkpointSequence: 3, sequence: 10 } });
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
        expect(await verdict()).toMatchObject({ intact: true, checkpointHead: { checkpointSequence: 1, sequence: 3 } });
      });
    });
  });
}

/** A permitted refund's execution record in `stream`. */
function refund(stream: string, reason: string, at: number) {
  return decisionRecord(
    {
      id: randomUUID(),
      correlationId: randomUUID(),
      sequence: 0,
      stream,
      capability: 'orders.refund',
      toolKind: 'bound',
      stage: 'execution',
      disposition: 'permit',
      reason,
      recordedAt: new Date(at),
    },
    {},
  );
}
