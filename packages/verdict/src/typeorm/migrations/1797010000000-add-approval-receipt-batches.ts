import { TableColumn, TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { longTextType } from './long-text-type.js';

const TABLE = 'verdict_approval_receipts';
const INDEX = 'idx_verdict_approval_receipts_batch';

/**
 * Adds batch approvals to `verdict_approval_receipts` (docs/approvals.md "Batch approvals", ADR 0102) on SQLite,
 * PostgreSQL and MySQL/MariaDB: `batch_id`, the fingerprint of the model turn a receipt was asked in (indexed:
 * a batch is read and decided by it), and `arguments`, JSON text of the batched proposal's validated arguments
 * for its approver, cleared when the batch is decided. Rows issued before it, and receipts asked on their own,
 * keep `null` in both. On MySQL/MariaDB `arguments` is `longtext`, as `provenance` is. `down` drops both.
 */
export class AddApprovalReceiptBatches1797010000000 implements MigrationInterface {
  name = 'AddApprovalReceiptBatches1797010000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const text = longTextType(queryRunner.connection.options.type);
    await queryRunner.addColumn(
      TABLE,
      new TableColumn({ name: 'batch_id', type: 'varchar', length: '64', isNullable: true }),
    );
    await queryRunner.addColumn(TABLE, new TableColumn({ name: 'arguments', type: text, isNullable: true }));
    await queryRunner.createIndex(TABLE, new TableIndex({ name: INDEX, columnNames: ['batch_id'] }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex(TABLE, INDEX);
    await queryRunner.dropColumn(TABLE, 'arguments');
    await queryRunner.dropColumn(TABLE, 'batch_id');
  }
}
