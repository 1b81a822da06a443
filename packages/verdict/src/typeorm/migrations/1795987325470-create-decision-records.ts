import { TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner, TableColumnOptions } from 'typeorm';
import { createVerdictTable } from './verdict-table.js';

const TABLE = 'verdict_decision_records';

/**
 * Creates `verdict_decision_records` (docs/architecture.md, "Evidence") on SQLite (better-sqlite3), PostgreSQL and
 * MySQL/MariaDB. `down` drops the table and its indexes.
 */
export class CreateDecisionRecords1795987325470 implements MigrationInterface {
  name = 'CreateDecisionRecords1795987325470';

  async up(queryRunner: QueryRunner): Promise<void> {
    const fingerprint = (name: string): TableColumnOptions => ({
      name,
      type: 'varchar',
      length: '64',
      isNullable: true,
    });
    const label = (name: string, length: number, isNullable = true): TableColumnOptions => ({
      name,
      type: 'varchar',
      length: String(length),
      isNullable,
    });
    const integer = (name: string): TableColumnOptions => ({ name, type: 'integer', isNullable: true });

    await createVerdictTable(queryRunner, TABLE, (instant) => ({
      columns: [
        { name: 'id', type: 'varchar', length: '64', isPrimary: true },
        label('correlation_id', 64, false),
        { name: 'sequence', type: 'integer' },
        label('capability', 255, false),
        label('tool_kind', 32, false),
        label('stage', 32, false),
        label('disposition', 32, false),
        { name: 'reason', type: 'text' },
        fingerprint('arguments_fingerprint'),
        fingerprint('tool_call_fingerprint'),
        label('target_policy', 64),
        label('target_strategy', 64),
        fingerprint('proposal_identity_fingerprint'),
        fingerprint('execution_identity_fingerprint'),
        { name: 'identity_match', type: 'boolean', isNullable: true },
        label('approval_phase', 32),
        label('approval_outcome', 32),
        fingerprint('receipt_fingerprint'),
        fingerprint('rate_limit_key_fingerprint'),
        integer('rate_limit_limit'),
        integer('rate_limit_remaining'),
        { ...instant, name: 'rate_limit_reset_at', isNullable: true },
        fingerprint('claim_fingerprint'),
        label('claim_status', 32),
        integer('claim_attempt'),
        { ...instant, name: 'recorded_at' },
      ],
      indices: [
        new TableIndex({
          name: 'idx_verdict_decision_records_correlation',
          columnNames: ['correlation_id', 'sequence'],
        }),
        new TableIndex({
          name: 'idx_verdict_decision_records_capability_time',
          columnNames: ['capability', 'recorded_at'],
        }),
      ],
    }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable(TABLE);
  }
}
