import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import {
  ChainProblem,
  type ChainVerification,
  type CheckpointKey,
  type DecisionRecord,
  EvidenceChainBrokenError,
  EvidenceKind,
  chainHash,
} from '@verdict/nestjs';
import { TypeOrmEvidenceRecorder, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { type DatabaseEngine, databaseEngines, streamDecision, withDataSource } from '@verdict/testing-kit';
import type { DataSource } from 'typeorm';
import { inProcessCli } from '../cli/in-process-cli.js';
import { at, engineSql, sealedStreams } from './chain-tampering.fixture.js';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };
const TABLE = 'verdict_decision_records';
const LINKS = 'verdict_evidence_links';
const CHECKPOINTS = 'verdict_evidence_checkpoints';
const KEY: CheckpointKey = { algorithm: 'hmac-sha256', keyId: 'prune-verified', secret: 'only the application' };
/** The prune's cutoff: records 1–4 of a stream (recorded at seconds 0–3) go, 5–10 stay. */
const CUTOFF = at(4);

/**
 * An insider who can write the tables but has not the key: edits record 8 of `stream` and recomputes the links from
 * there, so every link follows its predecessor and hashes its record; only the checkpoint of sequence 10 tells.
 */
async function rewrite(engine: DatabaseEngine, dataSource: DataSource, stream: string, records: DecisionRecord[]) {
  const sql = engineSql(engine, dataSource);
  const links = await sql(
    `SELECT sequence, record_id FROM ${LINKS} WHERE kind = $1 AND stream = $2 ORDER BY sequence`,
    [EvidenceKind.Decision, stream],
  );
  const byId = new Map(records.map((record) => [record.id, record]));
  let previousHash = String(
    (
      await sql(`SELECT hash FROM ${LINKS} WHERE kind = $1 AND stream = $2 AND sequence = 7`, [
        EvidenceKind.Decision,
        stream,
      ])
    )[0]!.hash,
  );
  for (const link of links.filter((row) => Number(row.sequence) >= 8)) {
    const sequence = Number(link.sequence);
    let record = byId.get(String(link.record_id))!;
    if (sequence === 8) {
      record = { ...record, reason: 'nothing to see' };
      await sql(`UPDATE ${TABLE} SET reason = $1 WHERE id = $2`, [record.reason, record.id]);
    }
    const hash = chainHash(EvidenceKind.Decision, record, { sequence, previousHash });
    await sql(`UPDATE ${LINKS} SET previous_hash = $1, hash = $2 WHERE kind = $3 AND stream = $4 AND sequence = $5`, [
      previousHash,
      hash,
      EvidenceKind.Decision,
      stream,
      sequence,
    ]);
    previousHash = hash;
  }
}

/**
 * An insider who can write the tables but has not the key moves `stream`'s cut point past records 5 and 6 (the first
 * recorded on or after {@link CUTOFF}): deletes their rows, or back-dates them to record 1's time. A prune that cut
 * where the tables now say would delete them with their links and sign the genuine link 6, and `verify` would find
 * records 7–10 intact after that anchor.
 */
async function moveTheCut(engine: DatabaseEngine, dataSource: DataSource, stream: string, how: 'delete' | 'back-date') {
  const sql = engineSql(engine, dataSource);
  const ids = (
    await sql(`SELECT record_id FROM ${LINKS} WHERE kind = $1 AND stream = $2 AND sequence IN (5, 6)`, [
      EvidenceKind.Decision,
      stream,
    ])
  ).map((row) => String(row.record_id));
  expect(ids).toHaveLength(2);
  if (how === 'delete') {
    for (const id of ids) await sql(`DELETE FROM ${TABLE} WHERE id = $1`, [id]);
    return;
  }
  // Record 1's time as the driver reads it, written back as it writes it (each engine stores instants its own way).
  const [{ recorded_at: long }] = await sql(
    `SELECT r.recorded_at FROM ${TABLE} r JOIN ${LINKS} l ON l.record_id = r.id WHERE l.kind = $1 AND l.stream = $2 AND l.sequence = 1`,
    [EvidenceKind.Decision, stream],
  );
  for (const id of ids) await sql(`UPDATE ${TABLE} SET recorded_at = $1 WHERE id = $2`, [long, id]);
}

/**
 * Runs `meanwhile` once, between the prune's verification and its prune: before the first statement after the
 * verification (its seal's look for the streams with records queued), on the DataSource as it was.
 */
function afterPruneVerified(dataSource: DataSource, meanwhile: () => Promise<void>): () => void {
  const original = dataSource.query.bind(dataSource);
  const restore = () => {
    dataSource.query = original;
  };
  dataSource.query = (async (sql: string, parameters?: unknown[]) => {
    if (/SELECT DISTINCT r\.stream/.test(sql) || (/verdict_evidence_pending/.test(sql) && /RECURSIVE/.test(sql))) {
      restore();
      await meanwhile();
    }
    return original(sql, parameters);
  }) as typeof dataSource.query;
  return restore;
}

for (const engine of databaseEngines()) {
  describe(`prune signs only what it verified [${engine.name}]`, () => {
    const verdictOf = async (recorder: TypeOrmEvidenceRecorder, stream: string): Promise<ChainVerification> =>
      (await recorder.verify()).find((verdict) => verdict.stream === stream)!;

    /** A stream's records and checkpoints, as counted in the database. */
    const stored = async (dataSource: DataSource, stream: string) => {
      const sql = engineSql(engine, dataSource);
      const count = async (table: string) =>
        Number((await sql(`SELECT COUNT(*) AS n FROM ${table} WHERE stream = $1`, [stream]))[0]!.n);
      return { records: await count(TABLE), checkpoints: await count(CHECKPOINTS) };
    };

    it('refuses a stream rewritten after it verified it: nothing of it deleted or signed, verify still reports it; the other stream is pruned', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { recorder, written } = await sealedStreams(dataSource, KEY, 2);
        const [forged, other] = [...written.keys()];
        const before = await stored(dataSource, forged!);
        const restore = afterPruneVerified(dataSource, () =>
          rewrite(engine, dataSource, forged!, written.get(forged!)!),
        );

        const refused = await recorder.prune(CUTOFF).then(
          () => null,
          (error: unknown) => error,
        );
        restore();

        expect(refused).toBeInstanceOf(EvidenceChainBrokenError);
        expect(refused).toMatchObject({ refused: 'prune' });
        expect((refused as EvidenceChainBrokenError).broken.map(({ stream, intact }) => [stream, intact])).toEqual([
          [forged, false],
        ]);
        // The rewritten stream is as the insider left it: no record deleted, no checkpoint signed over the forgery.
        expect(await stored(dataSource, forged!)).toEqual(before);
        expect(await verdictOf(recorder, forged!)).toMatchObject({
          intact: false,
          problem: ChainProblem.CheckpointMismatch,
          firstBadSequence: 10,
        });
        // The other stream was pruned as asked.
        expect(await verdictOf(recorder, other!)).toMatchObject({ intact: true, records: 6, verifiedThrough: 10 });
      });
    });

    it('refuses a stream rewritten after it verified it and sealed on since by a writer', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { recorder, written } = await sealedStreams(dataSource, KEY, 1);
        const [forged] = [...written.keys()];
        const before = await stored(dataSource, forged!);
        // Without the key: a keyed seal refuses to link after a head relinked at its checkpoint's sequence.
        const writer = new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' });
        const restore = afterPruneVerified(dataSource, async () => {
          await rewrite(engine, dataSource, forged!, written.get(forged!)!);
          // A writer's seal links its record after the rewritten head.
          await writer.recordDecision(streamDecision(forged!, 'written meanwhile', at(30)));
          await writer.seal();
        });

        await expect(recorder.prune(CUTOFF)).rejects.toMatchObject({
          refused: 'prune',
          broken: [{ stream: forged, intact: false, problem: ChainProblem.BrokenLink, firstBadSequence: 11 }],
        });
        restore();

        // Only the writer's record was added.
        expect(await stored(dataSource, forged!)).toEqual({
          records: before.records + 1,
          checkpoints: before.checkpoints,
        });
        expect(await verdictOf(recorder, forged!)).toMatchObject({
          intact: false,
          problem: ChainProblem.CheckpointMismatch,
          firstBadSequence: 10,
        });
      });
    });

    describe('a cut point moved after it verified it', () => {
      it.each([
        ['deleted', 'delete', ChainProblem.Missing],
        ['back-dated', 'back-date', ChainProblem.Modified],
      ] as const)(
        'refuses a stream whose first records kept were %s: nothing of it deleted, verify still reports it; the other stream is pruned',
        async (_moved, how, problem) => {
          await withDataSource(engine, SCHEMA, async (dataSource) => {
            const { recorder, written } = await sealedStreams(dataSource, KEY, 2);
            const [tampered, other] = [...written.keys()];
            const restore = afterPruneVerified(dataSource, () => moveTheCut(engine, dataSource, tampered!, how));

            const refused = await recorder.prune(CUTOFF).then(
              () => null,
              (error: unknown) => error,
            );
            restore();

            expect(refused).toBeInstanceOf(EvidenceChainBrokenError);
            expect(refused).toMatchObject({
              refused: 'prune',
              broken: [{ stream: tampered, intact: false, problem, firstBadSequence: 5 }],
              // The other stream's records 1–4 went: the error says so.
              pruned: { pruned: 4, anchored: 1 },
            });
            expect((refused as Error).message).toContain('1 other stream(s) were pruned: 4 record(s) deleted');
            // Nothing of the tampered stream was deleted past what the insider did, nothing signed over it.
            expect(await stored(dataSource, tampered!)).toEqual({ records: how === 'delete' ? 8 : 10, checkpoints: 1 });
            expect(await verdictOf(recorder, tampered!)).toMatchObject({ intact: false, problem, firstBadSequence: 5 });
            expect(await verdictOf(recorder, other!)).toMatchObject({ intact: true, records: 6, verifiedThrough: 10 });
          });
        },
      );

      it('prunes a stream that had no record on or after the cutoff and gained one meanwhile (control)', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const { recorder, written } = await sealedStreams(dataSource, KEY, 1);
          const [stream] = [...written.keys()];
          const writer = new TypeOrmEvidenceRecorder(dataSource, { checkpointKey: KEY, seal: 'manual' });
          const restore = afterPruneVerified(dataSource, async () => {
            await writer.recordDecision(streamDecision(stream!, 'written meanwhile', at(30)));
            await writer.seal();
          });

          // Every verified record is older than at(10): the first kept is the writer's, linked since.
          const report = await recorder.prune(at(10));
          restore();

          expect(report).toEqual({ pruned: 10, anchored: 1 });
          expect(await verdictOf(recorder, stream!)).toMatchObject({ intact: true, records: 1, verifiedThrough: 11 });
        });
      });
    });

    describe('a prune that refuses a stream after pruning others says what it pruned', () => {
      /** `streams` sealed streams, the first of which is rewritten after the prune verified it. */
      const refusedAfterOthers = async (dataSource: DataSource, streams: number) => {
        const { recorder, written } = await sealedStreams(dataSource, KEY, streams);
        const [forged] = [...written.keys()];
        const restore = afterPruneVerified(dataSource, () =>
          rewrite(engine, dataSource, forged!, written.get(forged!)!),
        );
        return { recorder, forged: forged!, restore };
      };

      it.each([[false], [true]])(
        'in the error and in `verdict evidence prune` (--json: %s), which still exits 1',
        async (json) => {
          await withDataSource(engine, SCHEMA, async (dataSource) => {
            const { recorder, forged, restore } = await refusedAfterOthers(dataSource, 3);

            const cli = await inProcessCli(
              { evidence: recorder },
              ...['evidence', 'prune', '--before', CUTOFF.toISOString(), ...(json ? ['--json'] : [])],
            );
            restore();

            expect(cli.code).toBe(1);
            if (json) {
              expect(JSON.parse(cli.stdout)).toEqual({ before: CUTOFF.toISOString(), pruned: 8, anchored: 2 });
              expect(JSON.parse(cli.stderr).error).toContain('Evidence was pruned in part');
            } else {
              expect(cli.stdout).toBe(
                `pruned 8 record(s) recorded before ${CUTOFF.toISOString()}; 2 stream(s) anchored by a signed checkpoint`,
              );
              expect(cli.stderr).toContain('2 other stream(s) were pruned: 8 record(s) deleted');
            }
            expect(cli.stderr).toContain(forged);
          });
        },
      );

      it('says nothing was pruned when every stream was refused, in the error and the CLI (control)', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const { recorder, forged, restore } = await refusedAfterOthers(dataSource, 1);

          const refused = await recorder.prune(CUTOFF).catch((error: unknown) => error);
          restore();

          expect(refused).toMatchObject({ refused: 'prune', broken: [{ stream: forged }] });
          expect((refused as EvidenceChainBrokenError).pruned).toBeUndefined();
          expect((refused as Error).message).toMatch(/^Evidence was not pruned: 1 stream\(s\) do not verify/);
        });
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const { recorder, forged, restore } = await refusedAfterOthers(dataSource, 1);

          const cli = await inProcessCli({ evidence: recorder }, 'evidence', 'prune', '--before', CUTOFF.toISOString());
          restore();

          expect([cli.code, cli.stdout]).toEqual([1, '']);
          expect(cli.stderr).toContain(
            `Evidence was not pruned: 1 stream(s) do not verify, the first decision stream ${forged}`,
          );
        });
      });
    });

    it('prunes untouched streams, and what is left verifies (control)', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { recorder, written } = await sealedStreams(dataSource, KEY, 2);

        expect(await recorder.prune(CUTOFF)).toEqual({ pruned: 8, anchored: 2 });

        for (const stream of written.keys())
          expect(await verdictOf(recorder, stream)).toMatchObject({ intact: true, records: 6, verifiedThrough: 10 });
      });
    });

    it('prunes what a writer sealed after it verified, in a stream it verified and in a new one (control)', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { recorder, written } = await sealedStreams(dataSource, KEY, 1);
        const [stream] = [...written.keys()];
        const fresh = `tenant:${randomUUID()}`;
        const writer = new TypeOrmEvidenceRecorder(dataSource, { checkpointKey: KEY, seal: 'manual' });
        const restore = afterPruneVerified(dataSource, async () => {
          await writer.recordDecision(streamDecision(stream!, 'written meanwhile', at(30)));
          await writer.recordDecision(streamDecision(fresh, 'an old record, sealed late', at(1)));
          await writer.seal();
        });

        const report = await recorder.prune(CUTOFF);
        restore();

        expect(report).toEqual({ pruned: 5, anchored: 2 });
        expect(await verdictOf(recorder, stream!)).toMatchObject({ intact: true, records: 7, verifiedThrough: 11 });
        expect(await verdictOf(recorder, fresh)).toMatchObject({ intact: true, records: 0, verifiedThrough: 1 });
      });
    });
  });
}
