import { TableColumn, TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createVerdictTable } from './verdict-table.js';

const RECORD_TABLES = [
  ['verdict_decision_records', 'uq_verdict_decision_records_chain'],
  ['verdict_release_records', 'uq_verdict_release_records_chain'],
] as const;
const CHECKPOINTS = 'verdict_evidence_checkpoints';

/**
 * Hash chains for evidence (docs/evidence.md, "Chain", ADR 0021) on SQLite, PostgreSQL and MySQL/MariaDB:
 * adds `stream`, `chain_sequence`, `previous_hash` and `hash` to the decision and release records, with
 * a unique index on (`stream`, `chain_sequence`) so a stream can never fork, and creates
 * `verdict_evidence_checkpoints` for signed checkpoints. Existing records join stream `default`, not yet
 * chained (the next seal chains them). `down` drops all of it.
 */
export class AddEvidenceChains1796000131000 implements MigrationInterface {
  name = 'AddEvidenceChains1796000131000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const [table, unique] of RECORD_TABLES) {
      await queryRunner.addColumns(table, [
        new TableColumn({ name: 'stream', type: 'varchar', length: '128', default: "'default'" }),
        new TableColumn({ name: 'chain_sequence', type: 'bigint', isNullable: true }),
        new TableColumn({ name: 'previous_hash', type: 'varchar', length: '64', isNullable: true }),
        new TableColumn({ name: 'hash', type: 'varchar', length: '64', isNullable: true }),
      ]);
      await queryRunner.createIndex(
        table,
        new TableIndex({ name: unique, columnNames: ['stream', 'chain_sequence'], isUnique: true }),
      );
    }
    await createVerdictTable(queryRunner, CHECKPOINTS, (instant) => ({
      columns: [
        { name: 'id', type: 'varchar', length: '64', isPrimary: true },
        { name: 'kind', type: 'varchar', length: '16' },
        { name: 'stream', type: 'varchar', length: '128' },
        { name: 'sequence', type: 'bigint' },
        { name: 'hash', type: 'varchar', length: '64' },
        { name: 'purpose', type: 'varchar', length: '16' },
        { name: 'algorithm', type: 'varchar', length: '16' },
        { name: 'key_id', type: 'varchar', length: '128' },
        { name: 'signature', type: 'text' },
        { ...instant, name: 'created_at' },
      ],
      indices: [
        new TableIndex({
          name: 'idx_verdict_evidence_checkpoints_stream',
          columnNames: ['kind', 'stream', 'sequence'],
        }),
      ],
    }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable(CHECKPOINTS);
    for (const [table, unique] of RECORD_TABLES) {
      await queryRunner.dropIndex(table, unique);
      for (const column of ['hash', 'previous_hash', 'chain_sequence', 'stream'])
        await queryRunner.dropColumn(table, column);
    }
  }
}
