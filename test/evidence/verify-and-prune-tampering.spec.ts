import { afterEach, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import {
  ChainProblem,
  type ChainVerification,
  ChainVerifier,
  type CheckpointKey,
  EvidenceChainBrokenError,
  EvidenceKind,
  GENESIS_HASH,
  chainHash,
} from '@verdict/nestjs';
import { TypeOrmEvidenceRecorder, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import {
  type DatabaseEngine,
  type DatabaseEngineName,
  databaseEngines,
  markPending,
  streamDecision,
  withDataSource,
} from '@verdict/testing-kit';
import type { DataSource } from 'typeorm';
import { inProcessCli } from '../cli/in-process-cli.js';
import { engineSql } from './chain-tampering.fixture.js';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };
const TABLE = 'verdict_decision_records';
const LINKS = 'verdict_evidence_links';
const CHECKPOINTS = 'verdict_evidence_checkpoints';
const KEY: CheckpointKey = { algorithm: 'hmac-sha256', keyId: 'verify-and-prune', secret: 'only the application' };
/** Three sealed batches: records 1–4, 5–8, 9–10; checkpoints 1, 2 and 3 pin sequences 4, 8 and 10. */
const BATCHES = [4, 4, 2];
/** When an old stream's records were recorded: long past the last seal's grace. */
const LONG_AGO = Date.UTC(2026, 0, 1);
/** A value of `recorded_at` each engine stores but no record can be hashed with. */
const UNREADABLE_TIME: Record<DatabaseEngineName, string> = {
  sqlite: 'not a time',
  postgres: 'infinity',
  mariadb: '0000-00-00 00:00:00',
};

afterEach(() => {
  process.exitCode = undefined;
});

/** SQL and verdicts on one stream of a test database. */
function streamTools(
  engine: DatabaseEngine,
  dataSource: DataSource,
  recorder: TypeOrmEvidenceRecorder,
  stream: string,
) {
  /** SQL on the test database, the stream as the only parameter unless given. */
  const sql = engineSql(engine, dataSource, [stream]);
  const verdict = async (of = recorder): Promise<ChainVerification> =>
    (await of.verify()).find((v) => v.kind === EvidenceKind.Decision && v.stream === stream)!;
  const count = async (table: string) =>
    Number((await sql(`SELECT COUNT(*) AS n FROM ${table} WHERE stream = $1`))[0]!.n);
  return { sql, verdict, count };
}

/** A keyed recorder and the stream of {@link BATCHES}, its records recorded a second apart from `from`. */
async function sealedStream(engine: DatabaseEngine, dataSource: DataSource, from = LONG_AGO) {
  const recorder = new TypeOrmEvidenceRecorder(dataSource, { checkpointKey: KEY, seal: 'manual' });
  const stream = `tenant:${randomUUID()}`;
  let second = 0;
  for (const size of BATCHES) {
    for (let i = 0; i < size; i++, second++)
      await recorder.recordDecision(streamDecision(stream, `refund ${second}`, new Date(from + second * 1000)));
    await recorder.seal();
  }
  return { recorder, stream, ...streamTools(engine, dataSource, recorder, stream) };
}

for (const engine of databaseEngines()) {
  describe(`verify and prune, tampering [${engine.name}]`, () => {
    const at = (second: number) => new Date(LONG_AGO + second * 1000);

    describe('prune verifies the chain as it stands before it signs anything', () => {
      it('refuses a relinked tail no checkpoint pins, and signs no checkpoint over it', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const { stream, recorder, sql, verdict, count } = await sealedStream(engine, dataSource);
          // An insider without the key: deletes the latest checkpoints, edits record 6 and relinks from there.
          await sql(`DELETE FROM ${CHECKPOINTS} WHERE stream = $1 AND checkpoint_sequence >= 2`);
          const [{ record_id: edited }] = await sql(
            `SELECT record_id FROM ${LINKS} WHERE stream = $1 AND sequence = 6`,
          );
          await sql(`UPDATE ${TABLE} SET reason = 'nothing to see' WHERE id = $1`, [edited]);
          await sql(`DELETE FROM ${LINKS} WHERE stream = $1 AND sequence >= 6`);
          await new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' }).seal();
          // A record written since, still queued: the prune must not link and sign it after the forged tail either.
          await recorder.recordDecision(streamDecision(stream, 'queued since', at(20)));
          const broken = await verdict();
          expect(broken).toMatchObject({ intact: false, problem: ChainProblem.Unpinned, firstBadSequence: 5 });
          const [records, checkpoints] = [await count(TABLE), await count(CHECKPOINTS)];

          await expect(recorder.prune(at(3))).rejects.toBeInstanceOf(EvidenceChainBrokenError);

          expect(await verdict()).toMatchObject({ intact: false, problem: ChainProblem.Unpinned, firstBadSequence: 5 });
          expect([await count(TABLE), await count(CHECKPOINTS)]).toEqual([records, checkpoints]);
          expect(await sql(`SELECT reason FROM ${TABLE} WHERE id = $1`, [edited])).toEqual([
            { reason: 'nothing to see' },
          ]);
        });
      });

      it('prunes an intact chain, linking the records still queued first (control)', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const { recorder, verdict } = await sealedStream(engine, dataSource);
          await recorder.recordDecision(streamDecision((await verdict()).stream, 'queued since', at(20)));
          expect(await verdict()).toMatchObject({ intact: true, records: 10, unsealed: 1 });

          expect(await recorder.prune(at(3))).toEqual({ pruned: 3, anchored: 1 });

          expect(await verdict()).toMatchObject({
            intact: true,
            records: 8,
            verifiedThrough: 11,
            unsealed: 0,
            checkpointHead: { sequence: 11 },
          });
        });
      });

      it("pins the head a sealer left unsigned within the last seal's grace, then prunes (control)", async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const from = Date.now() - 60_000;
          const { recorder, sql, verdict } = await sealedStream(engine, dataSource, from);
          // A MySQL/MariaDB sealer that died between its links and its checkpoint.
          await sql(`DELETE FROM ${CHECKPOINTS} WHERE stream = $1 AND checkpoint_sequence = 3`);
          expect(await verdict()).toMatchObject({ intact: true, checkpointHead: { sequence: 8 } });

          expect(await recorder.prune(new Date(from + 3000))).toEqual({ pruned: 3, anchored: 1 });

          expect(await verdict()).toMatchObject({ intact: true, records: 7, checkpointHead: { sequence: 10 } });
        });
      });
    });

    describe("the last seal's grace", () => {
      it('does not cover linked records dated in the future', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const { stream, verdict } = await sealedStream(engine, dataSource);
          const keyless = new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' });
          const future = new Date(Date.UTC(2099, 0, 1));
          await keyless.recordDecisions([
            streamDecision(stream, 'forged 1', future),
            streamDecision(stream, 'forged 2', future),
          ]);
          await keyless.seal();

          expect(await verdict()).toMatchObject({
            intact: false,
            problem: ChainProblem.Unpinned,
            firstBadSequence: 11,
            verifiedThrough: 10,
          });
        });
      });

      it('covers linked records recorded just now (control)', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const { stream, verdict } = await sealedStream(engine, dataSource);
          const keyless = new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' });
          await keyless.recordDecisions([streamDecision(stream, 'now 1'), streamDecision(stream, 'now 2')]);
          await keyless.seal();

          expect(await verdict()).toMatchObject({ intact: true, records: 12, verifiedThrough: 12 });
        });
      });
    });

    describe('the routine seal verifies the links no checkpoint pins before it signs a checkpoint over them', () => {
      /** Links two records after the stream's head without the key, just now: sequences 11 and 12, no checkpoint. */
      const linkUnpinned = async (dataSource: DataSource, stream: string) => {
        const keyless = new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' });
        await keyless.recordDecisions([streamDecision(stream, 'now 1'), streamDecision(stream, 'now 2')]);
        await keyless.seal();
      };
      /** {@link linkUnpinned}, then record 11 edited after its link: `verify` names it `modified`. */
      const tamperUnpinned = async (dataSource: DataSource, tools: ReturnType<typeof streamTools>, stream: string) => {
        await linkUnpinned(dataSource, stream);
        const [{ record_id: edited }] = await tools.sql(
          `SELECT record_id FROM ${LINKS} WHERE stream = $1 AND sequence = 11`,
        );
        await tools.sql(`UPDATE ${TABLE} SET reason = 'nothing to see' WHERE id = $1`, [edited]);
        expect(await tools.verdict()).toMatchObject({
          intact: false,
          problem: ChainProblem.Modified,
          firstBadSequence: 11,
        });
      };

      it('refuses to pin a head whose unpinned links do not verify, and still seals the other streams', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const tampered = await sealedStream(engine, dataSource);
          const other = await sealedStream(engine, dataSource);
          await tamperUnpinned(dataSource, tampered, tampered.stream);
          await tampered.recorder.recordDecision(streamDecision(other.stream, 'queued since', at(20)));
          const checkpoints = await tampered.count(CHECKPOINTS);

          const refused = await tampered.recorder.seal().catch((error: unknown) => error);

          expect(refused).toBeInstanceOf(EvidenceChainBrokenError);
          expect(refused).toMatchObject({
            refused: 'seal',
            broken: [{ stream: tampered.stream, problem: ChainProblem.Modified, firstBadSequence: 11 }],
          });
          expect(await tampered.count(CHECKPOINTS)).toBe(checkpoints);
          expect(await tampered.verdict()).toMatchObject({ problem: ChainProblem.Modified, firstBadSequence: 11 });
          // The other stream's queued record was linked and pinned all the same.
          expect(await other.verdict()).toMatchObject({ intact: true, records: 11, unsealed: 0 });
          // `verdict evidence seal` says so: exit 1, the stream named.
          const cli = await inProcessCli({ evidence: tampered.recorder }, 'evidence', 'seal');
          expect(cli.code).toBe(1);
          expect(cli.stderr).toContain(tampered.stream);
          expect(await tampered.count(CHECKPOINTS)).toBe(checkpoints);
        });
      });

      it("links nothing after them and signs no batch's checkpoint over them, the background seal going on with the other streams", async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const tampered = await sealedStream(engine, dataSource);
          const other = await sealedStream(engine, dataSource);
          await tamperUnpinned(dataSource, tampered, tampered.stream);
          const checkpoints = await tampered.count(CHECKPOINTS);
          const background = new TypeOrmEvidenceRecorder(dataSource, { checkpointKey: KEY, sealDelayMs: 0 });

          await background.recordDecisions([
            streamDecision(tampered.stream, 'queued since', at(20)),
            streamDecision(other.stream, 'queued since', at(20)),
          ]);
          await background.whenSealed();

          expect(await tampered.count(CHECKPOINTS)).toBe(checkpoints);
          expect(await tampered.verdict()).toMatchObject({ problem: ChainProblem.Modified, unsealed: 1 });
          expect(await other.verdict()).toMatchObject({ intact: true, records: 11, unsealed: 0 });
          await expect(tampered.recorder.seal()).rejects.toBeInstanceOf(EvidenceChainBrokenError);
          expect(await tampered.count(CHECKPOINTS)).toBe(checkpoints);
          expect(await tampered.verdict()).toMatchObject({ problem: ChainProblem.Modified, unsealed: 1 });
        });
      });

      it('links nothing after a tail cut below its last checkpoint and signs nothing over it', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const { recorder, stream, sql, verdict, count } = await sealedStream(engine, dataSource);
          // Links 9 and 10, which checkpoint 3 pins, are deleted with their records: the head is back at 8.
          await sql(
            `DELETE FROM ${TABLE} WHERE id IN (SELECT record_id FROM ${LINKS} WHERE stream = $1 AND sequence > 8)`,
          );
          await sql(`DELETE FROM ${LINKS} WHERE stream = $1 AND sequence > 8`);
          expect(await verdict()).toMatchObject({
            intact: false,
            problem: ChainProblem.Truncated,
            firstBadSequence: 9,
          });
          const checkpoints = await count(CHECKPOINTS);
          await recorder.recordDecision(streamDecision(stream, 'queued since', at(20)));

          const refused = await recorder.seal().catch((error: unknown) => error);

          expect(refused).toMatchObject({
            refused: 'seal',
            broken: [{ stream, problem: ChainProblem.Truncated, firstBadSequence: 9 }],
          });
          expect(await count(CHECKPOINTS)).toBe(checkpoints);
          expect(await verdict()).toMatchObject({ problem: ChainProblem.Truncated, firstBadSequence: 9, unsealed: 1 });
        });
      });

      it('pins a head whose unpinned links verify (control)', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const { recorder, stream, verdict } = await sealedStream(engine, dataSource);
          await linkUnpinned(dataSource, stream);
          expect(await verdict()).toMatchObject({ intact: true, checkpointHead: { sequence: 10 } });

          const cli = await inProcessCli({ evidence: recorder }, 'evidence', 'seal', '--json');

          expect([cli.code, JSON.parse(cli.stdout)]).toEqual([0, { sealed: 0, checkpoints: 1 }]);
          expect(await verdict()).toMatchObject({ intact: true, records: 12, checkpointHead: { sequence: 12 } });
        });
      });

      it('links a batch after unpinned links that verify and signs its checkpoint, in the background too (control)', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const { recorder, stream, verdict } = await sealedStream(engine, dataSource);
          await linkUnpinned(dataSource, stream);
          const background = new TypeOrmEvidenceRecorder(dataSource, { checkpointKey: KEY, sealDelayMs: 0 });

          await background.recordDecision(streamDecision(stream, 'queued since'));
          await background.whenSealed();

          expect(await verdict()).toMatchObject({
            intact: true,
            records: 13,
            unsealed: 0,
            checkpointHead: { sequence: 13 },
          });
          await recorder.recordDecision(streamDecision(stream, 'queued later'));
          await expect(recorder.seal()).resolves.toEqual({ sealed: 1, checkpoints: 1 });
          expect(await verdict()).toMatchObject({ intact: true, records: 14, checkpointHead: { sequence: 14 } });
        });
      });
    });

    describe('a checkpoint whose sequence cannot be read', () => {
      // SQLite keeps text in a bigint column; PostgreSQL and MariaDB refuse it.
      (engine.name === 'sqlite' ? it : it.skip)(
        'fails its own stream, as a replaced checkpoint, and every other stream is still verified',
        async () => {
          await withDataSource(engine, SCHEMA, async (dataSource) => {
            const { recorder, stream, sql, count } = await sealedStream(engine, dataSource);
            const other = await sealedStream(engine, dataSource);
            await sql(`UPDATE ${CHECKPOINTS} SET sequence = 'abc' WHERE stream = $1 AND checkpoint_sequence = 2`);

            const verdicts = await recorder.verify();

            expect(verdicts.find((v) => v.stream === stream)).toMatchObject({
              intact: false,
              problem: ChainProblem.CheckpointBrokenLink,
              firstBadCheckpoint: 2,
              firstBadSequence: 5,
              verifiedThrough: 4,
            });
            expect(verdicts.find((v) => v.stream === other.stream)).toMatchObject({ intact: true, records: 10 });
            const cli = await inProcessCli({ evidence: recorder }, 'evidence', 'verify', '--json');
            expect(cli.code).toBe(1);
            expect(
              JSON.parse(cli.stdout)
                .streams.map((v: ChainVerification) => [v.stream, v.intact])
                .sort(),
            ).toEqual(
              [
                [stream, false],
                [other.stream, true],
              ].sort(),
            );
            // Nothing is signed over it or pruned.
            const checkpoints = await count(CHECKPOINTS);
            await expect(recorder.seal()).rejects.toBeInstanceOf(EvidenceChainBrokenError);
            await expect(recorder.prune(at(3))).rejects.toBeInstanceOf(EvidenceChainBrokenError);
            expect(await count(CHECKPOINTS)).toBe(checkpoints);
            // Control: the other stream verifies.
            expect(await other.verdict()).toMatchObject({ intact: true });
          });
        },
      );

      it('is verified as before when it can be read (control)', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const { recorder, verdict } = await sealedStream(engine, dataSource);
          expect(await verdict()).toMatchObject({ intact: true, records: 10, checkpoints: 3 });
          await expect(recorder.seal()).resolves.toEqual({ sealed: 0, checkpoints: 0 });
        });
      });
    });

    describe('a record that cannot be hashed', () => {
      it('is reported modified in its stream, and every other stream is still verified', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const { recorder, stream, sql, verdict } = await sealedStream(engine, dataSource);
          const other = await sealedStream(engine, dataSource);
          const [{ record_id: id }] = await sql(`SELECT record_id FROM ${LINKS} WHERE stream = $1 AND sequence = 6`);
          await sql(`UPDATE ${TABLE} SET recorded_at = '${UNREADABLE_TIME[engine.name]}' WHERE id = $1`, [id]);

          const verdicts = await recorder.verify();
          expect(verdicts.find((v) => v.stream === stream)).toMatchObject({
            intact: false,
            problem: ChainProblem.Modified,
            firstBadSequence: 6,
            verifiedThrough: 5,
          });
          expect(verdicts.find((v) => v.stream === other.stream)).toMatchObject({ intact: true, records: 10 });
          // The operator CLI names both streams, rather than failing with the hashing error.
          const cli = await inProcessCli({ evidence: recorder }, 'evidence', 'verify', '--json');
          expect(cli.code).toBe(1);
          expect(JSON.parse(cli.stdout)).toMatchObject({ intact: false });
          expect(
            JSON.parse(cli.stdout)
              .streams.map((v: ChainVerification) => [v.stream, v.intact])
              .sort(),
          ).toEqual(
            [
              [stream, false],
              [other.stream, true],
            ].sort(),
          );
          await expect(recorder.prune(at(3))).rejects.toBeInstanceOf(EvidenceChainBrokenError);
          // Control: the stream's other records are untouched and the same verdict stands; the other stream verifies.
          expect(await verdict()).toMatchObject({ problem: ChainProblem.Modified, firstBadSequence: 6 });
          expect(await other.verdict()).toMatchObject({ intact: true });
        });
      });
    });

    describe('unsealed', () => {
      it("counts a stream's record a link of another stream names, as the stream's own links do not name it", async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const recorder = new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' });
          const stream = `tenant:${randomUUID()}`;
          const { sql, verdict } = streamTools(engine, dataSource, recorder, stream);
          await recorder.recordDecisions([
            streamDecision(stream, 'refund 0', at(0)),
            streamDecision(stream, 'refund 1', at(1)),
          ]);
          await recorder.seal();
          const queued = streamDecision(stream, 'refund 2', at(2));
          await recorder.recordDecision(queued);
          // Control: the queued record is counted.
          expect(await verdict()).toMatchObject({ intact: true, records: 2, unsealed: 1 });

          await sql(
            `INSERT INTO ${LINKS} (kind, stream, sequence, record_id, previous_hash, hash) VALUES ('decision', $1, 1, $2, $3, $4)`,
            [`tenant:${randomUUID()}`, queued.id, GENESIS_HASH, GENESIS_HASH],
          );
          expect(await verdict()).toMatchObject({ intact: true, records: 2, unsealed: 1 });

          // Control: once sealed, nothing is left unsealed.
          await sql(`DELETE FROM ${LINKS} WHERE record_id = $1`, [queued.id]);
          await recorder.seal();
          expect(await verdict()).toMatchObject({ intact: true, records: 3, unsealed: 0 });
        });
      });
    });

    describe('a link sequence that appears twice (a links table without its primary key)', () => {
      it('is reported broken_link, whichever of the two is read first', async () => {
        await withDataSource(engine, SCHEMA, async (dataSource) => {
          const recorder = new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' });
          const stream = `tenant:${randomUUID()}`;
          const { sql, verdict } = streamTools(engine, dataSource, recorder, stream);
          await recorder.recordDecisions([0, 1, 2].map((i) => streamDecision(stream, `refund ${i}`, at(i))));
          await recorder.seal();
          await dropLinksPrimaryKey(engine, dataSource);
          // A forged record linked at the head's sequence, 3, after record 2: as valid a continuation as record 3.
          const forged = streamDecision(stream, 'forged', at(3));
          await recorder.recordDecision(forged);
          await markPending(dataSource, 'id = $1', [forged.id], false);
          const [{ hash }] = await sql(`SELECT hash FROM ${LINKS} WHERE stream = $1 AND sequence = 2`);
          const link = { sequence: 3, previousHash: String(hash) };
          await sql(
            `INSERT INTO ${LINKS} (kind, stream, sequence, record_id, previous_hash, hash) VALUES ('decision', $1, $2, $3, $4, $5)`,
            [stream, 3, forged.id, link.previousHash, chainHash(EvidenceKind.Decision, forged, link)],
          );

          expect(await verdict()).toMatchObject({
            intact: false,
            problem: ChainProblem.BrokenLink,
            firstBadSequence: 3,
          });
          // Alone at its sequence, the forged link verifies (the hashes are all there is without a key): the record it
          // displaced, kept, is neither linked nor queued (`unlinked`, ADR 0163).
          const [{ record_id: displaced }] = await sql(
            `SELECT record_id FROM ${LINKS} WHERE stream = $1 AND sequence = 3 AND record_id <> $2`,
            [stream, forged.id],
          );
          await sql(`DELETE FROM ${LINKS} WHERE stream = $1 AND sequence = 3 AND record_id <> $2`, [stream, forged.id]);
          expect(await verdict()).toMatchObject({
            intact: false,
            problem: ChainProblem.Unlinked,
            firstBadSequence: 4,
            records: 3,
          });
          // Control: deleted too, only the repetition was what the chain could tell.
          await sql(`DELETE FROM ${TABLE} WHERE id = $1`, [displaced]);
          expect(await verdict()).toMatchObject({ intact: true, records: 3 });
        });
      });
    });
  });
}

describe('ChainVerifier', () => {
  const stream = 'tenant:verifier';
  const key: CheckpointKey = KEY;
  /** `count` records and their links, recorded at `recordedAt`. */
  const chain = (count: number, recordedAt: Date) => {
    let previousHash = GENESIS_HASH;
    return Array.from({ length: count }, (_, i) => {
      const record = streamDecision(stream, `refund ${i}`, recordedAt);
      const hash = chainHash(EvidenceKind.Decision, record, { sequence: i + 1, previousHash });
      const link = { stream, sequence: i + 1, previousHash, hash };
      previousHash = hash;
      return { record, link };
    });
  };
  const verify = (links: ReturnType<typeof chain>, now: Date) => {
    const verifier = new ChainVerifier(EvidenceKind.Decision, stream, [], key, null, now);
    for (const { record, link } of links) if (!verifier.accept(record, link)) break;
    return verifier.finish(0);
  };

  it("allows a minute of clock skew past the verifier's now in the last seal's grace, and no more", () => {
    const now = new Date(Date.UTC(2026, 5, 1));
    expect(verify(chain(2, new Date(now.getTime() + 59_000)), now)).toMatchObject({ intact: true });
    expect(verify(chain(2, now), now)).toMatchObject({ intact: true });
    expect(verify(chain(2, new Date(now.getTime() + 61_000)), now)).toMatchObject({
      intact: false,
      problem: ChainProblem.Unpinned,
      firstBadSequence: 1,
    });
  });

  it('reports a link sequence fed twice as broken_link', () => {
    const links = chain(3, new Date(LONG_AGO));
    const verifier = new ChainVerifier(EvidenceKind.Decision, stream, []);
    const fed = [links[0]!, links[1]!, links[1]!, links[2]!];
    for (const { record, link } of fed) if (!verifier.accept(record, link)) break;
    expect(verifier.finish(0)).toMatchObject({ intact: false, problem: ChainProblem.BrokenLink, firstBadSequence: 2 });
  });
});

/** What a links table that lost its primary key looks like: nothing refuses two links at one sequence. */
async function dropLinksPrimaryKey(engine: DatabaseEngine, dataSource: DataSource): Promise<void> {
  if (engine.name === 'mariadb') return void (await dataSource.query(`ALTER TABLE ${LINKS} DROP PRIMARY KEY`));
  if (engine.name === 'postgres') {
    const [{ conname }] = await dataSource.query(
      `SELECT conname FROM pg_constraint WHERE conrelid = '${LINKS}'::regclass AND contype = 'p'`,
    );
    return void (await dataSource.query(`ALTER TABLE ${LINKS} DROP CONSTRAINT "${conname}"`));
  }
  await dataSource.query(`CREATE TABLE links_without_key AS SELECT * FROM ${LINKS}`);
  await dataSource.query(`DROP TABLE ${LINKS}`);
  await dataSource.query(`ALTER TABLE links_without_key RENAME TO ${LINKS}`);
}
