import { describe, expect, it } from '@jest/globals';
import {
  ChainProblem,
  type ChainVerification,
  type CheckpointKey,
  EvidenceChainBrokenError,
  EvidenceKind,
  chainHash,
} from '@verdict/nestjs';
import { verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, streamDecision, withDataSource } from '@verdict/testing-kit';
import type { DataSource } from 'typeorm';
import { at, engineSql, sealedStreams } from './chain-tampering.fixture.js';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };
const TABLE = 'verdict_decision_records';
const LINKS = 'verdict_evidence_links';
const CHECKPOINTS = 'verdict_evidence_checkpoints';
const KEY: CheckpointKey = { algorithm: 'hmac-sha256', keyId: 'seal-relinked-head', secret: 'only the application' };
for (const engine of databaseEngines()) {
  describe(`a seal after a head relinked at its checkpoint's sequence [${engine.name}]`, () => {
    /** A keyed recorder and a stream of ten records sealed in one batch: its checkpoint pins sequence 10. */
    const sealedStream = async (dataSource: DataSource) => {
      const { recorder, written } = await sealedStreams(dataSource, KEY, 1);
      const [[stream, records]] = [...written];
      const sql = engineSql(engine, dataSource);
      const verdict = async (): Promise<ChainVerification> =>
        (await recorder.verify()).find((v) => v.stream === stream)!;
      const checkpoints = async () =>
        Number((await sql(`SELECT COUNT(*) AS n FROM ${CHECKPOINTS} WHERE stream = $1`, [stream]))[0]!.n);
      return { recorder, stream, records, sql, verdict, checkpoints };
    };

    it('refuses to link after it or sign over it; verify still reports the relink', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { recorder, stream, records, sql, verdict, checkpoints } = await sealedStream(dataSource);
        // An insider without the key edits record 10 and recomputes its link: it still follows link 9.
        const [{ previous_hash: previousHash }] = await sql(
          `SELECT previous_hash FROM ${LINKS} WHERE kind = $1 AND stream = $2 AND sequence = 10`,
          [EvidenceKind.Decision, stream],
        );
        const edited = { ...records[9]!, reason: 'nothing to see' };
        await sql(`UPDATE ${TABLE} SET reason = $1 WHERE id = $2`, [edited.reason, edited.id]);
        const hash = chainHash(EvidenceKind.Decision, edited, { sequence: 10, previousHash: String(previousHash) });
        await sql(`UPDATE ${LINKS} SET hash = $1 WHERE kind = $2 AND stream = $3 AND sequence = 10`, [
          hash,
          EvidenceKind.Decision,
          stream,
        ]);
        expect(await verdict()).toMatchObject({ problem: ChainProblem.CheckpointMismatch, firstBadSequence: 10 });
        const signed = await checkpoints();
        await recorder.recordDecision(streamDecision(stream, 'queued since', at(20)));

        const refused = await recorder.seal().catch((error: unknown) => error);

        expect(refused).toBeInstanceOf(EvidenceChainBrokenError);
        expect(refused).toMatchObject({
          refused: 'seal',
          broken: [{ stream, intact: false, problem: ChainProblem.BrokenLink, firstBadSequence: 10 }],
        });
        // Nothing linked after the relinked head, no checkpoint signed over it.
        expect(await checkpoints()).toBe(signed);
        expect(await verdict()).toMatchObject({
          problem: ChainProblem.CheckpointMismatch,
          firstBadSequence: 10,
          unsealed: 1,
        });
      });
    });

    it('links and signs after a head that holds its checkpoint hash (control)', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { recorder, stream, verdict, checkpoints } = await sealedStream(dataSource);
        const signed = await checkpoints();
        await recorder.recordDecision(streamDecision(stream, 'queued since', at(20)));

        await expect(recorder.seal()).resolves.toEqual({ sealed: 1, checkpoints: 1 });

        expect(await checkpoints()).toBe(signed + 1);
        expect(await verdict()).toMatchObject({ intact: true, records: 11, checkpointHead: { sequence: 11 } });
      });
    });
  });
}
