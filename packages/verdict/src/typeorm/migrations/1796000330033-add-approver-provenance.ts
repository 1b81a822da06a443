import { TableColumn } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { longTextType } from './long-text-type.js';

const TABLES = ['verdict_approval_receipts', 'verdict_review_items'];

/**
 * Adds `provenance` to `verdict_approval_receipts` and `verdict_review_items` (docs/provenance.md §4,
 * ADR 0033) on SQLite, PostgreSQL and MySQL/MariaDB: JSON text of what the approver or reviewer is shown of
 * the parked proposal's provenance — source labels, declared argument paths, content fingerprints; trusted
 * data only, never values or content. Rows written before it, and proposals the provenance stage did not
 * analyse, keep `null`. `down` drops the columns. On MySQL/MariaDB the column is `longtext`: `text` holds 64 KiB,
 * a few hundred untrusted items of a long agent run, and a call with more could never be parked.
 */
export class AddApproverProvenance1796000330033 implements MigrationInterface {
  name = 'AddApproverProvenance1796000330033';

  async up(queryRunner: QueryRunner): Promise<void> {
    const type = longTextType(queryRunner.connection.options.type);
    for (const table of TABLES)
      await queryRunner.addColumn(table, new TableColumn({ name: 'provenance', type, isNullable: true }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of TABLES) await queryRunner.dropColumn(table, 'provenance');
  }
}
