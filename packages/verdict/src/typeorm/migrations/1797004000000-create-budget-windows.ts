import { TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createVerdictTable } from './verdict-table.js';

const TABLE = 'verdict_budget_windows';

/**
 * Creates `verdict_budget_windows` (docs/budgets.md) on SQLite (better-sqlite3), PostgreSQL and MySQL/MariaDB: the
 * primary key (bucket_fingerprint, window_start) is what a reservation conflicts on; `spent` and `reserved` are
 * 64-bit totals in the application's unit; `expires_at` is indexed for `prune`. `down` drops the table and its index.
 */
export class CreateBudgetWindows1797004000000 implements MigrationInterface {
  name = 'CreateBudgetWindows1797004000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await createVerdictTable(queryRunner, TABLE, (instant) => ({
      columns: [
        { name: 'bucket_fingerprint', type: 'varchar', length: '64', isPrimary: true },
        { ...instant, name: 'window_start', isPrimary: true },
        { name: 'spent', type: 'bigint' },
        { name: 'reserved', type: 'bigint' },
        { ...instant, name: 'expires_at' },
      ],
      indices: [new TableIndex({ name: 'idx_verdict_budget_windows_expires_at', columnNames: ['expires_at'] })],
    }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable(TABLE);
  }
}
