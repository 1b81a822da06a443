import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createVerdictTable } from './verdict-table.js';

const TABLE = 'verdict_trajectory_states';

/**
 * Creates `verdict_trajectory_states` on SQLite (better-sqlite3), PostgreSQL and MySQL/MariaDB: one row
 * per trajectory, keyed by its fingerprint, with the folded state and the version advances compare.
 * `down` drops the table.
 */
export class CreateTrajectoryStates1796000000001 implements MigrationInterface {
  name = 'CreateTrajectoryStates1796000000001';

  async up(queryRunner: QueryRunner): Promise<void> {
    await createVerdictTable(queryRunner, TABLE, (instant) => ({
      columns: [
        { name: 'trajectory_fingerprint', type: 'varchar', length: '64', isPrimary: true },
        { name: 'state', type: 'text' },
        { name: 'version', type: 'integer' },
        { ...instant, name: 'updated_at' },
      ],
    }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable(TABLE);
  }
}
