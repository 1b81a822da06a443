import { TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createVerdictTable } from './verdict-table.js';

const TABLE = 'verdict_execution_claims';

/**
 * Creates `verdict_execution_claims` (docs/execution-claims-and-rate-limits.md) on SQLite (better-sqlite3), PostgreSQL and
 * MySQL/MariaDB: the unique binding fingerprint is what admission conflicts on, and (status, claimed_at)
 * serves the operator's list of unresolved claims. `down` drops the table and its indexes.
 */
export class CreateExecutionClaims1795988797706 implements MigrationInterface {
  name = 'CreateExecutionClaims1795988797706';

  async up(queryRunner: QueryRunner): Promise<void> {
    await createVerdictTable(queryRunner, TABLE, (instant) => ({
      columns: [
        { name: 'id', type: 'varchar', length: '64', isPrimary: true },
        { name: 'capability', type: 'varchar', length: '255' },
        { name: 'policy', type: 'varchar', length: '255' },
        { name: 'binding_fingerprint', type: 'varchar', length: '64' },
        { name: 'status', type: 'varchar', length: '32' },
        { name: 'attempt', type: 'integer' },
        { ...instant, name: 'claimed_at' },
        { ...instant, name: 'updated_at' },
        { name: 'resolved_by', type: 'varchar', length: '255', isNullable: true },
        { name: 'resolution_reason', type: 'text', isNullable: true },
        { ...instant, name: 'resolved_at', isNullable: true },
      ],
      indices: [
        new TableIndex({
          name: 'uq_verdict_execution_claims_binding',
          columnNames: ['binding_fingerprint'],
          isUnique: true,
        }),
        new TableIndex({
          name: 'idx_verdict_execution_claims_status_claimed_at',
          columnNames: ['status', 'claimed_at'],
        }),
      ],
    }));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropTable(TABLE);
  }
}
