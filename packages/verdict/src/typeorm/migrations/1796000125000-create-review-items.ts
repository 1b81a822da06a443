import { TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { exactCollation } from './1795996093417-create-approval-receipts.js';
import { createVerdictTable } from './verdict-table.js';

const TABLE = 'verdict_review_items';

/**
 * Creates `verdict_review_items` (docs/review-lane.md) on SQLite (better-sqlite3), PostgreSQL and
 * MySQL/MariaDB. The unique key (capability, request_key, binding_fingerprint) is what parking conflicts
 * on: the same request parked twice finds its item. The reviewer queue reads by (tenant, status,
 * expires_at). Id columns compare byte for byte on MySQL/MariaDB, as elsewhere. `down` drops the table.
 */
export class CreateReviewItems1796000125000 implements MigrationInterface {
  name = 'CreateReviewItems1796000125000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const exact = await exactCollation(queryRunner);
    await createVerdictTable(queryRunner, TABLE, (instant) => ({
      columns: [
        { name: 'id', type: 'varchar', length: '64', isPrimary: true, ...exact },
        { name: 'capability', type: 'varchar', length: '255', ...exact },
        // JSON text, so that every engine stores it alike.
        { name: 'arguments', type: 'text' },
        { name: 'request_key', type: 'varchar', length: '255', ...exact },
        { name: 'binding_fingerprint', type: 'varchar', length: '64', ...exact },
        { name: 'principal_fingerprint', type: 'varchar', length: '64', ...exact },
        { name: 'requester_key', type: 'text' },
        { name: 'tenant', type: 'varchar', length: '255', isNullable: true, ...exact },
        { name: 'conversation_id', type: 'text', isNullable: true },
        { name: 'kind', type: 'varchar', length: '16' },
        { name: 'status', type: 'varchar', length: '32' },
        { name: 'reason', type: 'text' },
        { name: 'description', type: 'text', isNullable: true },
        { name: 'subject', type: 'text', isNullable: true },
        { ...instant, name: 'expires_at' },
        { name: 'decided_by', type: 'varchar', length: '255', isNullable: true },
        { ...instant, name: 'decided_at', isNullable: true },
        { ...instant, name: 'settled_at', isNullable: true },
        { ...instant, name: 'created_at' },
        { ...instant, name: 'updated_at' },
      ],
      indices: [
        new TableIndex({
          name: 'uq_verdict_review_items_key',
          columnNames: ['capability', 'request_key', 'binding_fingerprint'],
          isUnique: true,
        }),
        new TableIndex({ name: 'idx_verdict_review_items_queue', columnNames: ['tenant', 'status', 'expires_at'] }),
      ],
    }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable(TABLE);
  }
}
