import { TableColumn } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

const TABLE = 'verdict_approval_receipts';

/**
 * Adds `conversation_fingerprint` to `verdict_approval_receipts` (ADR 0015) on SQLite, PostgreSQL and
 * MySQL/MariaDB: `sha256(JCS(conversationId ?? null))` of the conversation a receipt was asked in. With
 * `principal_fingerprint` it is what `ApprovalService` lookups match the requester on, and what scopes
 * the one-pending-receipt-per-tool-call cap to a conversation. Rows issued before it keep `null`: no
 * lookup finds them again (they expire within their TTL). The per-tool-call check is served by the
 * unique key's leading `tool_call_id`, so no index is added. `down` drops the column.
 */
export class AddApprovalReceiptConversations1796000110300 implements MigrationInterface {
  name = 'AddApprovalReceiptConversations1796000110300';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn(
      TABLE,
      new TableColumn({ name: 'conversation_fingerprint', type: 'varchar', length: '64', isNullable: true }),
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropColumn(TABLE, 'conversation_fingerprint');
  }
}
