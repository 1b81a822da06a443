import type { MigrationInterface, QueryRunner } from 'typeorm';
import { collateColumns } from './collated-columns.js';

const TABLE = 'verdict_decision_records';

/** Every text column `TypeOrmEvidenceQuery` filters or groups by, as the earlier migrations create it. */
const COMPARED_COLUMNS = [
  { name: 'correlation_id', type: 'varchar(64)', nullable: false },
  { name: 'capability', type: 'varchar(255)', nullable: false },
  { name: 'tool_kind', type: 'varchar(32)', nullable: false },
  { name: 'stage', type: 'varchar(32)', nullable: false },
  { name: 'disposition', type: 'varchar(32)', nullable: false },
  { name: 'reason', type: 'text', nullable: false },
  { name: 'actor_fingerprint', type: 'varchar(64)', nullable: true },
  { name: 'tool_call_fingerprint', type: 'varchar(64)', nullable: true },
] as const;

/**
 * On MySQL/MariaDB, gives the text columns of `verdict_decision_records` that `EvidenceQuery` filters and groups by
 * (correlation id, capability, tool kind, stage, disposition, reason, actor and tool-call fingerprints) the binary,
 * no-pad collation receipt ids have: the server's default one is case-insensitive and ignores trailing spaces, so
 * `list({ capability: 'ORDERS.REFUND' })` returned the records of `orders.refund`, `run` found a run by its id in
 * another case, and `shadowSummary` merged reasons that differ only in case. A value now matches itself only, as on
 * SQLite and PostgreSQL, which compare exactly already: there it does nothing. One ALTER TABLE, which rebuilds the
 * table once; the records and indexes are kept. `down` gives the columns the table's default collation again.
 */
export class CompareDecisionRecordsExactly1797014000000 implements MigrationInterface {
  name = 'CompareDecisionRecordsExactly1797014000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await collateColumns(queryRunner, TABLE, COMPARED_COLUMNS, true);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await collateColumns(queryRunner, TABLE, COMPARED_COLUMNS, false);
  }
}
