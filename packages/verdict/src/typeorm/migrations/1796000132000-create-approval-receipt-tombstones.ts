import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createVerdictTable } from './verdict-table.js';

const TABLE = 'verdict_approval_receipt_tombstones';

/**
 * Creates `verdict_approval_receipt_tombstones` on SQLite, PostgreSQL and MySQL/MariaDB: what a pruned
 * consumed approval receipt leaves behind, the SHA-256 of its key and when it was consumed, so its
 * replay is still refused (docs/evidence.md, "Retention"). `down` drops it.
 */
export class CreateApprovalReceiptTombstones1796000132000 implements MigrationInterface {
  name = 'CreateApprovalReceiptTombstones1796000132000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await createVerdictTable(queryRunner, TABLE, (instant) => ({
      columns: [
        { name: 'key_fingerprint', type: 'varchar', length: '64', isPrimary: true },
        { ...instant, name: 'consumed_at' },
      ],
    }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable(TABLE);
  }
}
