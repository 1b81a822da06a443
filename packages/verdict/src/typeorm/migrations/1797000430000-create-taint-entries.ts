import { TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createVerdictTable } from './verdict-table.js';

const TABLE = 'verdict_taint_entries';

/**
 * Creates `verdict_taint_entries` (docs/provenance.md, "Taint that survives writes") on SQLite (better-sqlite3),
 * PostgreSQL and MySQL/MariaDB: the primary key (tenant_fingerprint, fingerprint) is what recording conflicts on
 * and what each lookup (`tenant_fingerprint = ? AND fingerprint IN (…)`) reads; `expires_at` is indexed for
 * `prune`. `down` drops the table and its index.
 */
export class CreateTaintEntries1797000430000 implements MigrationInterface {
  name = 'CreateTaintEntries1797000430000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const primary = { isPrimary: true, primaryKeyConstraintName: 'pk_verdict_taint_entries' };
    await createVerdictTable(queryRunner, TABLE, (instant) => ({
      columns: [
        { name: 'tenant_fingerprint', type: 'varchar', length: '64', ...primary },
        { name: 'fingerprint', type: 'varchar', length: '64', ...primary },
        { ...instant, name: 'expires_at' },
      ],
      indices: [new TableIndex({ name: 'idx_verdict_taint_entries_expires_at', columnNames: ['expires_at'] })],
    }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable(TABLE);
  }
}
