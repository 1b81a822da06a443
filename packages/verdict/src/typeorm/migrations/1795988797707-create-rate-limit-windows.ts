import { TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createVerdictTable } from './verdict-table.js';

const TABLE = 'verdict_rate_limit_windows';

/**
 * Creates `verdict_rate_limit_windows` (docs/execution-claims-and-rate-limits.md) on SQLite (better-sqlite3), PostgreSQL and
 * MySQL/MariaDB: the primary key (bucket_fingerprint, window_start) is what consumption conflicts on,
 * and `expires_at` is indexed for `prune`. `down` drops the table and its index.
 */
export class CreateRateLimitWindows1795988797707 implements MigrationInterface {
  name = 'CreateRateLimitWindows1795988797707';

  async up(queryRunner: QueryRunner): Promise<void> {
    await createVerdictTable(queryRunner, TABLE, (instant) => ({
      columns: [
        { name: 'bucket_fingerprint', type: 'varchar', length: '64', isPrimary: true },
        { ...instant, name: 'window_start', isPrimary: true },
        { name: 'count', type: 'integer' },
        { ...instant, name: 'expires_at' },
      ],
      indices: [new TableIndex({ name: 'idx_verdict_rate_limit_windows_expires_at', columnNames: ['expires_at'] })],
    }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable(TABLE);
  }
}
