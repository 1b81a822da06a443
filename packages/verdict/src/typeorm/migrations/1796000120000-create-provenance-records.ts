import { TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner, TableColumnOptions } from 'typeorm';
import { createVerdictTable } from './verdict-table.js';

const TABLE = 'verdict_provenance_records';

/**
 * Creates `verdict_provenance_records` (docs/provenance.md) on SQLite (better-sqlite3), PostgreSQL and
 * MySQL/MariaDB: labels in clear, content, parent and argument-path fingerprints, never content. Indexed by
 * content fingerprint (lineage) and correlation id (a proposal's influences). `down` drops the table.
 */
export class CreateProvenanceRecords1796000120000 implements MigrationInterface {
  name = 'CreateProvenanceRecords1796000120000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const text = (name: string, length: number, isNullable = false): TableColumnOptions => ({
      name,
      type: 'varchar',
      length: String(length),
      isNullable,
    });
    await createVerdictTable(queryRunner, TABLE, (instant) => ({
      columns: [
        { name: 'id', type: 'varchar', length: '64', isPrimary: true },
        text('kind', 32),
        text('content_fingerprint', 64),
        text('source_kind', 32),
        text('source_name', 128),
        text('trust', 32),
        text('parent_fingerprint', 64, true),
        text('correlation_id', 128, true),
        text('capability', 255, true),
        text('argument_path_fingerprint', 64, true),
        { ...instant, name: 'recorded_at' },
      ],
      indices: [
        new TableIndex({ name: 'idx_verdict_provenance_records_content', columnNames: ['content_fingerprint'] }),
        new TableIndex({ name: 'idx_verdict_provenance_records_correlation', columnNames: ['correlation_id'] }),
      ],
    }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable(TABLE);
  }
}
