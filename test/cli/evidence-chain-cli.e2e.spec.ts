import { afterEach, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CheckpointKey } from '@verdict/nestjs';
import { TypeOrmEvidenceRecorder, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, streamDecision, withDataSource } from '@verdict/testing-kit';
import type { DataSource } from 'typeorm';
import { inProcessCli } from './in-process-cli.js';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };
const KEY: CheckpointKey = { algorithm: 'hmac-sha256', keyId: 'cli-test', secret: 'operator-held secret' };

afterEach(() => {
  process.exitCode = undefined;
});

/** Runs `verdict <argv>` in this process against `recorder`; its exit code and what it printed. */
const cli = (recorder: TypeOrmEvidenceRecorder, ...argv: string[]) => inProcessCli({ evidence: recorder }, ...argv);

/**
 * `count` decision records in `stream` (default: a fresh one), one second apart from 2026-01-01 plus `from`
 * seconds, sealed.
 */
async function recordSealed(
  _dataSource: DataSource,
  recorder: TypeOrmEvidenceRecorder,
  count: number,
  stream = `tenant:${randomUUID()}`,
  from = 0,
) {
  const records = Array.from({ length: count }, (_, i) =>
    streamDecision(stream, `refund ${from + i}`, new Date(Date.UTC(2026, 0, 1, 0, 0, from + i))),
  );
  await recorder.recordDecisions(records);
  await recorder.seal();
  return { stream, records };
}

for (const engine of databaseEngines()) {
  describe(`verdict evidence [${engine.name}]`, () => {
    it('verify exits 0 on intact chains, and 1 naming the first bad sequence once a row is edited', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const recorder = new TypeOrmEvidenceRecorder(dataSource, { checkpointKey: KEY, seal: 'manual' });
        const { stream, records } = await recordSealed(dataSource, recorder, 6);

        const intact = await cli(recorder, 'evidence', 'verify', '--json');
        expect(intact.code).toBe(0);
        expect(JSON.parse(intact.stdout)).toMatchObject({ intact: true, streams: [{ stream, records: 6 }] });

        const p = engine.name === 'postgres' ? '$1' : '?';
        await dataSource.query(`UPDATE verdict_decision_records SET disposition = 'deny' WHERE id = ${p}`, [
          records[2]!.id,
        ]);
        const broken = await cli(recorder, 'evidence', 'verify', '--json');
        expect(broken.code).toBe(1);
        expect(JSON.parse(broken.stdout)).toMatchObject({
          intact: false,
          streams: [{ stream, intact: false, firstBadSequence: 3, problem: 'modified' }],
        });
        const text = await cli(recorder, 'evidence', 'verify');
        expect(text.code).toBe(1);
        expect(text.stderr).toContain(`decision stream ${stream}: first bad sequence 3 (modified)`);
      });
    });

    it('prune --before removes the older records, and what remains still verifies from the signed anchor', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const recorder = new TypeOrmEvidenceRecorder(dataSource, { checkpointKey: KEY, seal: 'manual' });
        const { stream } = await recordSealed(dataSource, recorder, 6);

        const pruned = await cli(recorder, 'evidence', 'prune', '--before', '2026-01-01T00:00:04Z', '--json');
        expect(pruned.code).toBe(0);
        expect(JSON.parse(pruned.stdout)).toEqual({ before: '2026-01-01T00:00:04.000Z', pruned: 4, anchored: 1 });
        const [{ remaining }] = await dataSource.query('SELECT COUNT(*) AS remaining FROM verdict_decision_records');
        expect(Number(remaining)).toBe(2);

        // Later records keep chaining after the anchor, and the whole stream verifies.
        await recorder.recordDecision(streamDecision(stream, 'after the prune'));
        await recorder.seal();
        const verified = await cli(recorder, 'evidence', 'verify', '--json');
        expect(verified.code).toBe(0);
        expect(JSON.parse(verified.stdout).streams).toMatchObject([
          { stream, intact: true, records: 3, verifiedThrough: 7 },
        ]);
      });
    });

    it('verify names a checkpoint deleted from the checkpoint chain, and --witness a tail cut back to an earlier checkpoint', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const recorder = new TypeOrmEvidenceRecorder(dataSource, { checkpointKey: KEY, seal: 'manual' });
        const { stream } = await recordSealed(dataSource, recorder, 3);
        await recordSealed(dataSource, recorder, 3, stream, 3);
        await recordSealed(dataSource, recorder, 3, stream, 6);
        const p = (index: number) => (engine.name === 'postgres' ? `$${index}` : '?');
        const folder = await mkdtemp(join(tmpdir(), 'verdict-witness-'));
        try {
          const witnessed = await cli(recorder, 'evidence', 'verify', '--json');
          expect(witnessed.code).toBe(0);
          expect(JSON.parse(witnessed.stdout).streams).toMatchObject([
            { stream, intact: true, checkpointHead: { checkpointSequence: 3, sequence: 9 } },
          ]);
          const witness = join(folder, 'verify.json');
          await writeFile(witness, witnessed.stdout);

          // The insider removes the latest checkpoint and the records after the one before it.
          await dataSource.query(
            `DELETE FROM verdict_decision_records WHERE id IN (SELECT record_id FROM verdict_evidence_links WHERE stream = ${p(1)} AND sequence > 6)`,
            [stream],
          );
          await dataSource.query(`DELETE FROM verdict_evidence_links WHERE stream = ${p(1)} AND sequence > 6`, [
            stream,
          ]);
          await dataSource.query(
            `DELETE FROM verdict_evidence_checkpoints WHERE stream = ${p(1)} AND checkpoint_sequence = 3`,
            [stream],
          );
          expect((await cli(recorder, 'evidence', 'verify', '--json')).code).toBe(0); // alone, it looks as it did
          const rolledBack = await cli(recorder, 'evidence', 'verify', '--witness', witness, '--json');
          expect(rolledBack.code).toBe(1);
          expect(JSON.parse(rolledBack.stdout)).toMatchObject({
            intact: false,
            streams: [
              { stream, intact: false, problem: 'checkpoint_rolled_back', firstBadCheckpoint: 3, firstBadSequence: 7 },
            ],
          });

          // And a checkpoint deleted from the middle breaks the chain with or without a witness.
          await dataSource.query(
            `DELETE FROM verdict_evidence_checkpoints WHERE stream = ${p(1)} AND checkpoint_sequence = 1`,
            [stream],
          );
          const missing = await cli(recorder, 'evidence', 'verify', '--json');
          expect(missing.code).toBe(1);
          expect(JSON.parse(missing.stdout).streams).toMatchObject([
            { stream, intact: false, problem: 'checkpoint_missing', firstBadCheckpoint: 1, firstBadSequence: 1 },
          ]);
          const text = await cli(recorder, 'evidence', 'verify');
          expect(text.code).toBe(1);
          expect(text.stderr).toContain(
            `decision stream ${stream}: first bad sequence 1 (checkpoint_missing, checkpoint 1)`,
          );
        } finally {
          await rm(folder, { recursive: true, force: true });
        }
      });
    });

    it('verify --witness passes a chain pruned after the witness was taken, and refuses a file it cannot read (exit 2)', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const recorder = new TypeOrmEvidenceRecorder(dataSource, { checkpointKey: KEY, seal: 'manual' });
        const { stream } = await recordSealed(dataSource, recorder, 6);
        const folder = await mkdtemp(join(tmpdir(), 'verdict-witness-'));
        try {
          const witness = join(folder, 'verify.json');
          await writeFile(witness, (await cli(recorder, 'evidence', 'verify', '--json')).stdout);
          expect((await cli(recorder, 'evidence', 'prune', '--before', '2026-01-01T00:00:04Z')).code).toBe(0);

          const verified = await cli(recorder, 'evidence', 'verify', '--witness', witness, '--json');
          expect(verified.code).toBe(0);
          expect(JSON.parse(verified.stdout).streams).toMatchObject([{ stream, intact: true, verifiedThrough: 6 }]);

          const garbage = join(folder, 'garbage.json');
          await writeFile(garbage, '{"streams": [{"kind": "decision"}]}');
          for (const file of [garbage, join(folder, 'absent.json')]) {
            const refused = await cli(recorder, 'evidence', 'verify', '--witness', file, '--json');
            expect(refused.code).toBe(2);
            expect(JSON.parse(refused.stderr).error).toContain('--witness');
            expect(refused.stdout).toBe('');
          }
        } finally {
          await rm(folder, { recursive: true, force: true });
        }
      });
    });

    it('prune refuses a date it cannot read (exit 2) and a recorder without a signing key, deleting nothing', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const unkeyed = new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' });
        await recordSealed(dataSource, unkeyed, 3);

        const badDate = await cli(unkeyed, 'evidence', 'prune', '--before', 'last tuesday');
        expect(badDate.code).toBe(2);
        expect(badDate.stderr).toContain('--before needs an ISO 8601 date');
        // Dates JavaScript would still read: another format, an instant without a zone (the process's local time),
        // and a day the calendar does not have (read as 3 March).
        for (const loose of ['Jan 1 2030 00:00:00 GMT', '2030', '2030-01-01T00:00:00', '2030-02-31']) {
          const refused = await cli(unkeyed, 'evidence', 'prune', '--before', loose);
          expect({ loose, code: refused.code }).toEqual({ loose, code: 2 });
        }
        const noKey = await cli(unkeyed, 'evidence', 'prune', '--before', '2030-01-01T00:00:00Z', '--json');
        expect(noKey.code).toBe(1);
        expect(JSON.parse(noKey.stderr).error).toContain('checkpointKey');
        const [{ remaining }] = await dataSource.query('SELECT COUNT(*) AS remaining FROM verdict_decision_records');
        expect(Number(remaining)).toBe(3);
      });
    });
  });
}
