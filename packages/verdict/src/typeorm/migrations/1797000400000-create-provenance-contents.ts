import { TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createVerdictTable } from './verdict-table.js';
import { longTextType } from './long-text-type.js';

const TABLE = 'verdict_provenance_contents';

/**
 * Creates `verdict_provenance_contents` (docs/provenance.md §4, ADR 0042) on SQLite (better-sqlite3), PostgreSQL
 * and MySQL/MariaDB: the untrusted texts of parked calls' windows, primary key the content fingerprint, `kept_at`
 * indexed for `prune`. On MySQL/MariaDB `text` is `longtext`: a window's page may exceed `text`'s 64 KiB. `down`
 * drops the table and its index.
 */
export class CreateProvenanceContents1797000400000 implements MigrationInterface {
  name = 'CreateProvenanceContents1797000400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const text = longTextType(queryRunner.connection.options.type);
    await createVerdictTable(queryRunner, TABLE, (instant) => ({
      columns: [
        { name: 'fingerprint', type: 'varchar', length: '64', isPrimary: true },
        { name: 'text', type: text },
        { ...instant, name: 'kept_at' },
      ],
      indices: [new TableIndex({ name: 'idx_verdict_provenance_contents_kept_at', columnNames: ['kept_at'] })],
    }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable(TABLE);
  }
}
