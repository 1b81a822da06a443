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
import { at, engineSql, sealedStreams } from './chain-tampering.fixture.js';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };
const TABLE = 'verdict_decision_records';
const LINKS = 'verdict_evidence_links';
const CHECKPOINTS = 'verdict_evidence_checkpoints';
const KEY: CheckpointKey = { algorithm: 'hmac-sha256', keyId: 'unlinked-after-seal', secret: 'only the application' };
/** A background seal that does not start while a test runs: what it wrote stays queued. */
const NOT_YET = 2 ** 31 - 1;

// A seal takes each record it links out of the queue (`link_pending` on SQLite and MySQL/MariaDB, the table
// `verdict_evidence_pending` on PostgreSQL). Someone who can write the tables, without the key, who then deletes a
// stream's links and checkpoints leaves its records neither linked nor queued: no seal links them again and no prune
// (which deletes through the links) removes them. `verify` must fail such a stream (`unlinked`, ADR 0163), with or
// without the key, while records written and not sealed yet stay `unsealed` and intact.
for (const engine of databaseEngines()) {
  describe(`records whose links were deleted after their seal [${engine.name}]`, () => {
    /** One keyed stream of ten records sealed in one batch, with SQL and verdicts on it. */
    async function sealedStream(dataSource: DataSource) {
      const { recorder, written } = await sealedStreams(dataSource, KEY, 1);
      const [[stream, records]] = [...written];
      const sql = engineSql(engine, dataSource, [stream]);
      const verdict = async (of = recorder, witness?: ChainVerification): Promise<ChainVerification> =>
        (await of.verify({ witness: witness === undefined ? undefined : [witness] })).find(
          (v) => v.kind === EvidenceKind.Decision && v.stream === stream,
        )!;
      const count = async () => Number((await sql(`SELECT COUNT(*) AS n FROM ${TABLE} WHERE stream = $1`))[0]!.n);
      /** What an insider without the key does: rewrite a record, then delete the links and checkpoints that vouch for it. */
      const rewriteAndUnlink = async (id: string, links = 'TRUE', checkpoints = 'TRUE') => {
        await sql(`UPDATE ${TABLE} SET disposition = 'permit', reason = 'nothing to see' WHERE id = $1`, [id]);
        await sql(`DELETE FROM ${LINKS} WHERE stream = $1 AND ${links}`);
        await sql(`DELETE FROM ${CHECKPOINTS} WHERE stream = $1 AND ${checkpoints}`);
      };
      return { recorder, stream, records, sql, verdict, count, rewriteAndUnlink };
    }

    it('fails a stream whose rewritten records lost every link and checkpoint, with or without the key; no seal or prune absorbs it', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { recorder, stream, records, verdict, count, rewriteAndUnlink } = await sealedStream(dataSource);
        await rewriteAndUnlink(records[3]!.id);
        const unlinked = { intact: false, problem: ChainProblem.Unlinked, firstBadSequence: 1, records: 0 };
        expect(await verdict()).toMatchObject({ ...unlinked, checkpoints: 0, unsealed: 10 });
        expect(await verdict(new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' }))).toMatchObject(unlinked);
        // The seal took them out of the queue: a later one does not link them, and the stream still fails.
        expect(await recorder.seal()).toMatchObject({ sealed: 0 });
        expect(await verdict()).toMatchObject(unlinked);
        // A prune deletes nothing of it and signs nothing over it.
        await expect(recorder.prune(at(100))).rejects.toMatchObject({
          refused: 'prune',
          broken: [{ stream, problem: ChainProblem.Unlinked }],
        });
        expect(await count()).toBe(10);
        expect(await verdict()).toMatchObject({ ...unlinked, checkpoints: 0 });
      });
    });

    it('fails a stream cut back to an earlier checkpoint whose cut records were kept and rewritten', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { recorder, stream, verdict, sql, rewriteAndUnlink } = await sealedStream(dataSource);
        const later = [10, 11, 12].map((second) => streamDecision(stream, `refund ${second}`, at(second)));
        await recorder.recordDecisions(later);
        await recorder.seal();
        // Checkpoint 2 pins sequence 13; deleted with the links after 10, the chain is the chain after the first seal.
        await rewriteAndUnlink(later[1]!.id, 'sequence > 10', 'checkpoint_sequence = 2');
        expect(await sql(`SELECT sequence FROM ${CHECKPOINTS} WHERE stream = $1`)).toHaveLength(1);
        expect(await verdict()).toMatchObject({
          intact: false,
          problem: ChainProblem.Unlinked,
          firstBadSequence: 11,
          verifiedThrough: 10,
          records: 10,
          unsealed: 3,
        });
      });
    });

    it('fails a pruned stream whose anchor, checkpoints and links were deleted, and prunes nothing of it', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { recorder, records, verdict, count, rewriteAndUnlink } = await sealedStream(dataSource);
        expect(await recorder.prune(at(5))).toEqual({ pruned: 5, anchored: 1 });
        expect(await verdict()).toMatchObject({ intact: true, records: 5 });
        await rewriteAndUnlink(records[7]!.id);
        expect(await verdict()).toMatchObject({
          intact: false,
          problem: ChainProblem.Unlinked,
          firstBadSequence: 1,
          unsealed: 5,
        });
        await expect(recorder.prune(at(100))).rejects.toBeInstanceOf(EvidenceChainBrokenError);
        expect(await count()).toBe(5);
      });
    });

    it('verifies records written and not sealed yet as unsealed and intact, sealed by hand or in the background (control)', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        for (const options of [
          { checkpointKey: KEY, seal: 'manual' },
          { checkpointKey: KEY, sealDelayMs: NOT_YET },
          { seal: 'manual' },
        ] as const) {
          const recorder = new TypeOrmEvidenceRecorder(dataSource, options);
          const stream = `tenant:${randomUUID()}`;
          await recorder.recordDecisions(
            Array.from({ length: 10 }, (_, i) => streamDecision(stream, `refund ${i}`, at(i))),
          );
          const verdict = async () => (await recorder.verify()).find((v) => v.stream === stream);
          expect(await verdict()).toMatchObject({ intact: true, problem: null, records: 0, unsealed: 10 });
          await recorder.seal();
          expect(await verdict()).toMatchObject({ intact: true, records: 10, unsealed: 0 });
        }
      });
    });

    it('verifies and prunes a sealed stream with records still queued after it (control)', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { recorder, stream, verdict, count } = await sealedStream(dataSource);
        await recorder.recordDecisions(
          [10, 11].map((second) => streamDecision(stream, `refund ${second}`, at(second))),
        );
        expect(await verdict()).toMatchObject({ intact: true, records: 10, unsealed: 2 });
        expect(await recorder.prune(at(5))).toEqual({ pruned: 5, anchored: 1 });
        expect(await verdict()).toMatchObject({ intact: true, records: 7, unsealed: 0 });
        expect(await count()).toBe(7);
      });
    });

    it('catches, against a witness only, rewritten records handed back to the queue and relinked from genesis', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { recorder, stream, records, verdict, rewriteAndUnlink } = await sealedStream(dataSource);
        const witness = await verdict();
        await rewriteAndUnlink(records[3]!.id);
        await markPending(dataSource, 'stream = $1', [stream], true);
        // The application's next seal links them from genesis and signs them anew: the database alone cannot tell.
        expect(await recorder.seal()).toMatchObject({ sealed: 10, checkpoints: 1 });
        expect(await verdict()).toMatchObject({ intact: true, records: 10, unsealed: 0 });
        expect(await verdict(recorder, witness)).toMatchObject({
          intact: false,
          problem: ChainProblem.CheckpointRolledBack,
          firstBadCheckpoint: 1,
        });
      });
    });

    it('verifies a stream sealed again since, against a witness taken before (control)', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { recorder, stream, verdict } = await sealedStream(dataSource);
        const witness = await verdict();
        await recorder.recordDecision(streamDecision(stream, 'refund 10', at(10)));
        await recorder.seal();
        expect(await verdict(recorder, witness)).toMatchObject({
          intact: true,
          records: 11,
          checkpointHead: { checkpointSequence: 2, sequence: 11 },
        });
      });
    });
  });
}
