import { TableColumn, TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

const TABLE = 'verdict_approval_receipts';
const INDEX = 'idx_verdict_approval_receipts_principal';

/**
 * Adds `principal_fingerprint` to `verdict_approval_receipts` (ADR 0015) on SQLite, PostgreSQL and
 * MySQL/MariaDB: `sha256(JCS({actor, tenant}))` of who asked, which the pending-receipt caps count by.
 * Rows issued before it keep `null` and are never counted. The index (principal_fingerprint, capability,
 * expires_at) serves the per-capability count over unexpired rows; it holds no `status`, so approvals
 * and consumptions never rewrite it. `down` drops the index and the column.
 */
export class AddApprovalReceiptPrincipals1796000104000 implements MigrationInterface {
  name = 'AddApprovalReceiptPrincipals1796000104000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn(
      TABLE,
      new TableColumn({ name: 'principal_fingerprint', type: 'varchar', length: '64', isNullable: true }),
    );
    await queryRunner.createIndex(
      TABLE,
      new TableIndex({ name: INDEX, columnNames: ['principal_fingerprint', 'capability', 'expires_at'] }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex(TABLE, INDEX);
    await queryRunner.dropColumn(TABLE, 'principal_fingerprint');
  }
}
