import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import {
  ChainProblem,
  type ChainVerification,
  type CheckpointKey,
  EvidenceKind,
  signCheckpoint,
} from '@verdict/nestjs';
import { TypeOrmEvidenceRecorder, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, streamDecision, withDataSource } from '@verdict/testing-kit';
import type { DataSource } from 'typeorm';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };
const LINKS = 'verdict_evidence_links';
const CHECKPOINTS = 'verdict_evidence_checkpoints';
const KEY: CheckpointKey = { algorithm: 'hmac-sha256', keyId: 'legacy-anchor', secret: 'the application secret' };
/** When the stream's records were recorded. */
const LONG_AGO = Date.UTC(2026, 0, 1);

// A prune anchor written before checkpoints chained (migration 1796000250034) signed neither chain field, so its row's
// checkpoint_sequence is nobody's signed word (ADR 0183). Ranked and walked by that column, an insider without the key
// who renumbered it past the chain hid a cut-back from the witness and a checkpoint deleted from the middle.
for (const engine of databaseEngines()) {
  describe(`a pre-chain prune anchor renumbered by an insider [${engine.name}]`, () => {
    const p = (index: number) => (engine.name === 'postgres' ? `$${index}` : '?');

    /**
     * Records 1–4 linked and pruned before checkpoints chained (the prune's anchor, at 4, signed without chain fields),
     * then, after the upgrade and with the key, three sealed batches: checkpoints 1, 2 and 3 pin 8, 12 and 14.
     */
    async function upgradedStream(dataSource: DataSource) {
      const stream = `tenant:${randomUUID()}`;
      let second = 0;
      const next = () => streamDecision(stream, `refund ${second}`, new Date(LONG_AGO + 1000 * second++));
      const unkeyed = new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' });
      await unkeyed.recordDecisions([next(), next(), next(), next()]);
      await unkeyed.seal();
      const [head] = await dataSource.query(`SELECT hash FROM ${LINKS} WHERE stream = ${p(1)} AND sequence = 4`, [
        stream,
      ]);
      const legacy = signCheckpoint(KEY, {
        kind: EvidenceKind.Decision,
        stream,
        sequence: 4,
        hash: String(head.hash),
        checkpointSequence: null,
        previousCheckpointHash: null,
        purpose: 'prune',
      });
      const anchorId = randomUUID();
      await dataSource.query(
        `INSERT INTO ${CHECKPOINTS} (id, kind, stream, sequence, hash, purpose, algorithm, key_id, signature, created_at) VALUES (${[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map(p).join(', ')})`,
        [
          anchorId,
          'decision',
          stream,
          4,
          legacy.hash,
          'prune',
          legacy.algorithm,
          legacy.keyId,
          legacy.signature,
          engine.name === 'sqlite' ? '2026-01-01 00:00:04.000' : new Date(LONG_AGO + 4000),
        ],
      );
      await dataSource.query(
        `DELETE FROM verdict_decision_records WHERE id IN (SELECT record_id FROM ${LINKS} WHERE stream = ${p(1)} AND sequence <= 4)`,
        [stream],
      );
      await dataSource.query(`DELETE FROM ${LINKS} WHERE stream = ${p(1)} AND sequence <= 4`, [stream]);
      const recorder = new TypeOrmEvidenceRecorder(dataSource, { checkpointKey: KEY, seal: 'manual' });
      const sealBatch = async (size: number) => {
        for (let i = 0; i < size; i++) await recorder.recordDecision(next());
        await recorder.seal();
      };
      for (const size of [4, 4, 2]) await sealBatch(size);
      const verdict = async (witness?: ChainVerification) =>
        (await recorder.verify({ witness: witness === undefined ? undefined : [witness] })).find(
          (verification) => verification.stream === stream,
        )!;
      /** Deletes every checkpoint after `checkpoint` and every record after `sequence`: the chain as it was then. */
      const cutBackTo = async (sequence: number, checkpoint: number) => {
        await dataSource.query(`DELETE FROM ${CHECKPOINTS} WHERE stream = ${p(1)} AND checkpoint_sequence > ${p(2)}`, [
          stream,
          checkpoint,
        ]);
        await dataSource.query(
          `DELETE FROM verdict_decision_records WHERE id IN (SELECT record_id FROM ${LINKS} WHERE stream = ${p(1)} AND sequence > ${p(2)})`,
          [stream, sequence],
        );
        await dataSource.query(`DELETE FROM ${LINKS} WHERE stream = ${p(1)} AND sequence > ${p(2)}`, [
          stream,
          sequence,
        ]);
      };
      /** What an insider with SQL access and no key writes into the pre-chain anchor's row. */
      const rewriteAnchor = (set: string) =>
        dataSource.query(`UPDATE ${CHECKPOINTS} SET ${set} WHERE id = ${p(1)}`, [anchorId]);
      /** The checkpoint sequences of the stream's checkpoints but the pre-chain anchor, in order. */
      const chained = async (): Promise<number[]> =>
        (
          await dataSource.query(
            `SELECT checkpoint_sequence FROM ${CHECKPOINTS} WHERE stream = ${p(1)} AND id <> ${p(2)} ORDER BY checkpoint_sequence`,
            [stream, anchorId],
          )
        ).map((row: Record<string, unknown>) => Number(row.checkpoint_sequence));
      return { stream, verdict, cutBackTo, rewriteAnchor, sealBatch, chained };
    }

    it('control: the upgraded stream verifies with and without a witness, across later seals', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { verdict, sealBatch, chained } = await upgradedStream(dataSource);
        const witness = await verdict();
        expect(witness).toMatchObject({
          intact: true,
          records: 10,
          verifiedThrough: 14,
          checkpoints: 4,
          checkpointHead: { checkpointSequence: 3, sequence: 14 },
        });
        expect(await verdict(witness)).toMatchObject({ intact: true, checkpointHead: { checkpointSequence: 3 } });
        // The first seal after the upgrade started the checkpoint chain at 1, after the pre-chain anchor.
        expect(await chained()).toEqual([1, 2, 3]);
        await sealBatch(3);
        expect(await verdict()).toMatchObject({ intact: true, records: 13, checkpointHead: { checkpointSequence: 4 } });
        expect(await verdict(witness)).toMatchObject({ intact: true, checkpointHead: { checkpointSequence: 4 } });
      });
    });

    it('control: a cut-back fails against the witness, a middle checkpoint deleted is named', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const cutBack = await upgradedStream(dataSource);
        const witness = await cutBack.verdict();
        await cutBack.cutBackTo(12, 2);
        expect(await cutBack.verdict()).toMatchObject({ intact: true, checkpointHead: { checkpointSequence: 2 } });
        expect(await cutBack.verdict(witness)).toMatchObject({
          intact: false,
          problem: ChainProblem.CheckpointRolledBack,
          firstBadCheckpoint: 3,
        });
        const middle = await upgradedStream(dataSource);
        await dataSource.query(`DELETE FROM ${CHECKPOINTS} WHERE stream = ${p(1)} AND checkpoint_sequence = 2`, [
          middle.stream,
        ]);
        expect(await middle.verdict()).toMatchObject({
          intact: false,
          problem: ChainProblem.CheckpointMissing,
          firstBadCheckpoint: 2,
          firstBadSequence: 9,
        });
      });
    });

    it('a cut-back still fails against the witness once the pre-chain anchor is renumbered', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { verdict, cutBackTo, rewriteAnchor } = await upgradedStream(dataSource);
        const witness = await verdict();
        await cutBackTo(12, 2);
        await rewriteAnchor('checkpoint_sequence = 1000000');
        // The anchor's row names a place its signature does not: it vouches for nothing, the chain fails at its start.
        expect(await verdict(witness)).toMatchObject({
          intact: false,
          problem: ChainProblem.CheckpointBrokenLink,
          firstBadSequence: 1,
          firstBadCheckpoint: null,
          checkpointHead: null,
        });
        expect(await verdict()).toMatchObject({ intact: false, problem: ChainProblem.CheckpointBrokenLink });
      });
    });

    it('a checkpoint deleted from the middle is still caught once the pre-chain anchor is renumbered', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { verdict, rewriteAnchor, stream } = await upgradedStream(dataSource);
        await dataSource.query(`DELETE FROM ${CHECKPOINTS} WHERE stream = ${p(1)} AND checkpoint_sequence = 2`, [
          stream,
        ]);
        await rewriteAnchor('checkpoint_sequence = 1000000');
        expect(await verdict()).toMatchObject({
          intact: false,
          problem: ChainProblem.CheckpointBrokenLink,
          firstBadSequence: 1,
        });
      });
    });

    it('a later seal chains onto the checkpoint head, not onto a renumbered pre-chain anchor', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const { verdict, rewriteAnchor, sealBatch, chained } = await upgradedStream(dataSource);
        await rewriteAnchor('checkpoint_sequence = 1000000');
        await sealBatch(2);
        expect(await verdict()).toMatchObject({ intact: false, problem: ChainProblem.CheckpointBrokenLink });
        expect(await chained()).toEqual([1, 2, 3, 4]);
        // Put back, the anchor is what it was: the seal's checkpoint 4 followed checkpoint 3's hash.
        await rewriteAnchor('checkpoint_sequence = NULL');
        expect(await verdict()).toMatchObject({ intact: true, records: 12, checkpointHead: { checkpointSequence: 4 } });
      });
    });

    it('a pre-chain anchor given one chain field, or both, no longer verifies', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const previousOnly = await upgradedStream(dataSource);
        await previousOnly.rewriteAnchor(`previous_checkpoint_hash = '${'0'.repeat(64)}'`);
        expect(await previousOnly.verdict()).toMatchObject({
          intact: false,
          problem: ChainProblem.CheckpointBrokenLink,
          firstBadSequence: 1,
        });
        // Both fields are signed once both are there: the pre-chain signature covers neither.
        const both = await upgradedStream(dataSource);
        await both.rewriteAnchor(`checkpoint_sequence = 1000000, previous_checkpoint_hash = '${'0'.repeat(64)}'`);
        expect(await both.verdict()).toMatchObject({ intact: false, problem: ChainProblem.CheckpointSignature });
      });
    });
  });
}
