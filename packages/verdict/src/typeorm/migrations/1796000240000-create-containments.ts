import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createVerdictTable } from './verdict-table.js';

const TABLE = 'verdict_containments';

/**
 * Creates `verdict_containments` on SQLite (better-sqlite3), PostgreSQL and MySQL/MariaDB: one row per
 * engaged kill switch, primary key (scope, subject), so engaging twice keeps one row. `down` drops it.
 */
export class CreateContainments1796000240000 implements MigrationInterface {
  name = 'CreateContainments1796000240000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await createVerdictTable(queryRunner, TABLE, (instant) => ({
      columns: [
        { name: 'scope', type: 'varchar', length: '16', isPrimary: true },
        { name: 'subject', type: 'varchar', length: '255', isPrimary: true },
        { name: 'reason', type: 'text' },
        { name: 'engaged_by', type: 'varchar', length: '255' },
        { name: 'operator_identity', type: 'varchar', length: '255', isNullable: true },
        { ...instant, name: 'engaged_at' },
      ],
    }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable(TABLE);
  }
}
