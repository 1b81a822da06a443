import { TableColumn, TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

const CHECKPOINTS = 'verdict_evidence_checkpoints';
const INDEX = 'uq_verdict_evidence_checkpoints_chain';
const ANCHORS = 'idx_verdict_evidence_checkpoints_purpose';

/**
 * Chains evidence checkpoints to each other (docs/evidence.md, "Checkpoints", ADR 0034) on SQLite,
 * PostgreSQL and MySQL/MariaDB: adds `checkpoint_sequence` (a checkpoint's place in its stream's
 * checkpoint chain, from 1) and `previous_checkpoint_hash` (the hash of the checkpoint before it), both
 * signed, and a unique index (`kind`, `stream`, `checkpoint_sequence`) so a checkpoint chain cannot fork.
 * Also an index (`kind`, `stream`, `purpose`, `sequence`): every seal looks up its stream's latest prune
 * anchor, which without it scans every checkpoint the stream ever had (one per sealed batch).
 * Checkpoints written before keep both columns `NULL`: they are verified as before and chain to nothing;
 * the next seal starts the checkpoint chain. `down` drops both columns and the indexes.
 */
export class ChainEvidenceCheckpoints1796000250034 implements MigrationInterface {
  name = 'ChainEvidenceCheckpoints1796000250034';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumns(CHECKPOINTS, [
      new TableColumn({ name: 'checkpoint_sequence', type: 'bigint', isNullable: true }),
      new TableColumn({ name: 'previous_checkpoint_hash', type: 'varchar', length: '64', isNullable: true }),
    ]);
    await queryRunner.createIndex(
      CHECKPOINTS,
      new TableIndex({ name: INDEX, columnNames: ['kind', 'stream', 'checkpoint_sequence'], isUnique: true }),
    );
    await queryRunner.createIndex(
      CHECKPOINTS,
      new TableIndex({ name: ANCHORS, columnNames: ['kind', 'stream', 'purpose', 'sequence'] }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex(CHECKPOINTS, ANCHORS);
    await queryRunner.dropIndex(CHECKPOINTS, INDEX);
    await queryRunner.dropColumns(CHECKPOINTS, ['previous_checkpoint_hash', 'checkpoint_sequence']);
  }
}
