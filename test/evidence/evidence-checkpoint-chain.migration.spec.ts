import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { ChainProblem, type CheckpointKey, EvidenceKind, signCheckpoint } from '@verdict/nestjs';
import { TypeOrmEvidenceRecorder, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, streamDecision, withDataSource } from '@verdict/testing-kit';
import { ChainEvidenceCheckpoints1796000250034 } from '../../packages/verdict/src/typeorm/migrations/1796000250034-chain-evidence-checkpoints.js';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };
const KEY: CheckpointKey = { algorithm: 'hmac-sha256', keyId: 'migration-test', secret: 'the application secret' };

for (const engine of databaseEngines()) {
  describe(`ChainEvidenceCheckpoints migration [${engine.name}]`, () => {
    it('keeps a checkpoint signed before it verifying, and the next seal starts the checkpoint chain', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const p = (index: number) => (engine.name === 'postgres' ? `$${index}` : '?');
        const migration = new ChainEvidenceCheckpoints1796000250034();
        const queryRunner = dataSource.createQueryRunner();
        const stream = `tenant:${randomUUID()}`;
        const record = (i: number) => streamDecision(stream, `refund ${i}`, new Date(Date.UTC(2026, 0, 1, 0, 0, i)));
        try {
          // Before the migration: four linked records and a checkpoint signed without chain fields.
          await migration.down(queryRunner);
          const unkeyed = new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' });
          await unkeyed.recordDecisions([0, 1, 2, 3].map(record));
          await unkeyed.seal();
          const [head] = await dataSource.query(
            `SELECT sequence, hash FROM verdict_evidence_links WHERE stream = ${p(1)} AND sequence = 4`,
            [stream],
          );
          const legacy = signCheckpoint(KEY, {
            kind: EvidenceKind.Decision,
            stream,
            sequence: 4,
            hash: String(head.hash),
            checkpointSequence: null,
            previousCheckpointHash: null,
            purpose: 'seal',
          });
          await dataSource.query(
            `INSERT INTO verdict_evidence_checkpoints (id, kind, stream, sequence, hash, purpose, algorithm, key_id, signature, created_at) VALUES (${[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map(p).join(', ')})`,
            [
              randomUUID(),
              'decision',
              stream,
              4,
              legacy.hash,
              'seal',
              legacy.algorithm,
              legacy.keyId,
              legacy.signature,
              engine.name === 'sqlite' ? '2026-01-01 00:00:04.000' : new Date(Date.UTC(2026, 0, 1, 0, 0, 4)),
            ],
          );
          await migration.up(queryRunner);
        } finally {
          await queryRunner.release();
        }
        const recorder = new TypeOrmEvidenceRecorder(dataSource, { checkpointKey: KEY, seal: 'manual' });
        const verdict = async () => (await recorder.verify()).find((v) => v.stream === stream)!;
        expect(await verdict()).toMatchObject({ intact: true, records: 4, checkpoints: 1, checkpointHead: null });

        await recorder.recordDecisions([4, 5].map(record));
        await recorder.seal();
        expect(await verdict()).toMatchObject({
          intact: true,
          records: 6,
          checkpoints: 2,
          checkpointHead: { checkpointSequence: 1, sequence: 6 },
        });

        // The pre-chain checkpoint still pins its record: its signature is checked as it was signed.
        await dataSource.query(
          `UPDATE verdict_evidence_checkpoints SET signature = ${p(1)} WHERE stream = ${p(2)} AND checkpoint_sequence IS NULL`,
          [Buffer.alloc(32, 1).toString('base64'), stream],
        );
        expect(await verdict()).toMatchObject({
          intact: false,
          problem: ChainProblem.CheckpointSignature,
          firstBadSequence: 4,
          firstBadCheckpoint: null,
        });
      });
    });
  });
}
