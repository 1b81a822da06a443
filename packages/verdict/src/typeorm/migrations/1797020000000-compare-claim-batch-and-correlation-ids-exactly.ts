import type { MigrationInterface, QueryRunner } from 'typeorm';
import { type CollatedColumn, collateColumns } from './collated-columns.js';

/** Each table's id column compared by equality, as the earlier migrations create it. */
const COMPARED_COLUMNS: ReadonlyArray<readonly [table: string, column: CollatedColumn]> = [
  // CreateExecutionClaims1795988797706: the primary key.
  ['verdict_execution_claims', { name: 'id', type: 'varchar(64)', nullable: false }],
  // AddApprovalReceiptBatches1797010000000.
  ['verdict_approval_receipts', { name: 'batch_id', type: 'varchar(64)', nullable: true }],
  // CreateProvenanceRecords1796000120000.
  ['verdict_provenance_records', { name: 'correlation_id', type: 'varchar(128)', nullable: true }],
];

/**
 * On MySQL/MariaDB, gives the ids that stores look rows up by, and that no earlier migration collated, the binary,
 * no-pad collation receipt ids have (ADR 0176): an execution claim's id, an approval receipt's batch id and a
 * provenance record's correlation id. The server's default collation is case-insensitive and ignores trailing
 * spaces, so `find('CLAIM_…')` found claim `claim_…` and an operator's `resolve` of it resolved that claim,
 * `inBatch('B-1')` also read the receipts of batch `b-1`, which a batch decision locked as its own, and
 * `forCorrelation` of a case-changed id returned another run's provenance. An id now matches itself only, as on
 * SQLite and PostgreSQL, which compare exactly already: there it does nothing. One ALTER TABLE per table, which
 * rebuilds it once; rows and indexes are kept. `down` gives the columns their table's default collation again, and
 * fails while two claim ids differ only in case.
 */
export class CompareClaimBatchAndCorrelationIdsExactly1797020000000 implements MigrationInterface {
  name = 'CompareClaimBatchAndCorrelationIdsExactly1797020000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    for (const [table, column] of COMPARED_COLUMNS) await collateColumns(queryRunner, table, [column], true);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const [table, column] of COMPARED_COLUMNS) await collateColumns(queryRunner, table, [column], false);
  }
}
