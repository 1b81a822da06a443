import { TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner, TableColumnOptions } from 'typeorm';
import { createVerdictTable } from './verdict-table.js';

const TABLE = 'verdict_approval_receipts';

/**
 * Creates `verdict_approval_receipts` (docs/approvals.md) on SQLite (better-sqlite3), PostgreSQL and
 * MySQL/MariaDB. The unique key (tool_call_id, capability, binding_fingerprint) is what issuing conflicts
 * on and what consumption finds its row by; led by tool_call_id, it also serves the pending-by-tool-call
 * lookup and validation's (tool_call_id, capability) read, so no second index is kept: one on `status`
 * would be rewritten by every transition and, on InnoDB, could deadlock an approval against a
 * consumption of the same row. On MySQL/MariaDB the id columns get a binary, no-pad collation: the
 * default one is case-insensitive and ignores trailing spaces, and ids must compare exactly, as they do
 * on SQLite and PostgreSQL. `down` drops the table and its index.
 */
export class CreateApprovalReceipts1795996093417 implements MigrationInterface {
  name = 'CreateApprovalReceipts1795996093417';

  async up(queryRunner: QueryRunner): Promise<void> {
    const exact = await exactCollation(queryRunner);
    await createVerdictTable(queryRunner, TABLE, (instant) => ({
      columns: [
        { name: 'id', type: 'varchar', length: '64', isPrimary: true, ...exact },
        { name: 'tool_call_id', type: 'varchar', length: '255', ...exact },
        { name: 'capability', type: 'varchar', length: '255', ...exact },
        { name: 'binding_fingerprint', type: 'varchar', length: '64', ...exact },
        { name: 'status', type: 'varchar', length: '32' },
        { name: 'reason', type: 'text' },
        { name: 'description', type: 'text', isNullable: true },
        // JSON text, so that every engine stores it alike.
        { name: 'subject', type: 'text', isNullable: true },
        { ...instant, name: 'expires_at' },
        { name: 'approved_by', type: 'varchar', length: '255', isNullable: true },
        { ...instant, name: 'approved_at', isNullable: true },
        { name: 'rejected_by', type: 'varchar', length: '255', isNullable: true },
        { ...instant, name: 'rejected_at', isNullable: true },
        { ...instant, name: 'consumed_at', isNullable: true },
        { ...instant, name: 'created_at' },
        { ...instant, name: 'updated_at' },
      ],
      indices: [
        new TableIndex({
          name: 'uq_verdict_approval_receipts_key',
          columnNames: ['tool_call_id', 'capability', 'binding_fingerprint'],
          isUnique: true,
        }),
      ],
    }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable(TABLE);
  }
}

/** Byte-for-byte string comparison on MySQL/MariaDB; nothing to add elsewhere. */
export async function exactCollation(
  queryRunner: QueryRunner,
): Promise<Pick<TableColumnOptions, 'charset' | 'collation'>> {
  if (!['mysql', 'mariadb', 'aurora-mysql'].includes(queryRunner.connection.options.type)) return {};
  const [{ version }] = (await queryRunner.query('SELECT VERSION() AS version')) as Array<{ version: string }>;
  const collation = /mariadb/i.test(version)
    ? 'utf8mb4_nopad_bin'
    : Number.parseInt(version, 10) >= 8
      ? 'utf8mb4_0900_bin'
      : 'utf8mb4_bin';
  return { charset: 'utf8mb4', collation };
}
