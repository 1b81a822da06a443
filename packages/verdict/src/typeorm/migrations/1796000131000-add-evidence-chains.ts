import { TableColumn, TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createVerdictTable } from './verdict-table.js';

const RECORD_TABLES = ['verdict_decision_records', 'verdict_release_records'];
const LINKS = 'verdict_evidence_links';
const CHECKPOINTS = 'verdict_evidence_checkpoints';

/**
 * Hash chains for evidence (docs/evidence.md, "Chain", ADR 0021) on SQLite, PostgreSQL and MySQL/MariaDB:
 * adds `stream` to the decision and release records (existing ones join stream `default`, not yet
 * chained: the next `seal()` links them), creates `verdict_evidence_links` (one row per chained record:
 * kind, stream, sequence, record id, previous hash, hash; primary key (`kind`, `stream`, `sequence`) so a
 * stream can never fork, unique (`kind`, `record_id`) so a record is linked once) and
 * `verdict_evidence_checkpoints` for signed checkpoints. `down` drops all of it.
 */
export class AddEvidenceChains1796000131000 implements MigrationInterface {
  name = 'AddEvidenceChains1796000131000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const table of RECORD_TABLES)
      await queryRunner.addColumn(
        table,
        new TableColumn({ name: 'stream', type: 'varchar', length: '128', default: "'default'" }),
      );
    const hash = (name: string) => ({ name, type: 'varchar', length: '64' });
    const identifier = (name: string, length: number) => ({ name, type: 'varchar', length: String(length) });
    await createVerdictTable(queryRunner, LINKS, () => ({
      columns: [
        { ...identifier('kind', 16), isPrimary: true },
        { ...identifier('stream', 128), isPrimary: true },
        { name: 'sequence', type: 'bigint', isPrimary: true },
        identifier('record_id', 64),
        hash('previous_hash'),
        hash('hash'),
      ],
      indices: [
        new TableIndex({
          name: 'uq_verdict_evidence_links_record',
          columnNames: ['kind', 'record_id'],
          isUnique: true,
        }),
      ],
    }));
    await createVerdictTable(queryRunner, CHECKPOINTS, (instant) => ({
      columns: [
        { ...identifier('id', 64), isPrimary: true },
        identifier('kind', 16),
        identifier('stream', 128),
        { name: 'sequence', type: 'bigint' },
        hash('hash'),
        identifier('purpose', 16),
        identifier('algorithm', 16),
        identifier('key_id', 128),
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
    await queryRunner.dropTable(LINKS);
    for (const table of RECORD_TABLES) await queryRunner.dropColumn(table, 'stream');
  }
}
