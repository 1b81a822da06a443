import { TableColumn, TableIndex } from 'typeorm';
import type { MigrationInterface, QueryRunner } from 'typeorm';

const DECISIONS = 'verdict_decision_records';
const RECEIPTS = 'verdict_approval_receipts';

/** Every filter of `EvidenceQuery.list` has an index that leads with it and ends with the time it orders by. */
const DECISION_INDEXES = [
  new TableIndex({
    name: 'idx_verdict_decision_records_disposition_time',
    columnNames: ['disposition', 'recorded_at'],
  }),
  new TableIndex({ name: 'idx_verdict_decision_records_stage_time', columnNames: ['stage', 'recorded_at'] }),
  new TableIndex({
    name: 'idx_verdict_decision_records_actor_time',
    columnNames: ['actor_fingerprint', 'recorded_at'],
  }),
  new TableIndex({ name: 'idx_verdict_decision_records_tool_call', columnNames: ['tool_call_fingerprint'] }),
  new TableIndex({ name: 'idx_verdict_decision_records_time', columnNames: ['recorded_at'] }),
];

const RECEIPT_EXPIRY = new TableIndex({
  name: 'idx_verdict_approval_receipts_expires_at',
  columnNames: ['expires_at'],
});

/**
 * Adds `actor_fingerprint` to `verdict_decision_records` (ADR 0023) on SQLite, PostgreSQL and MySQL/MariaDB:
 * `actorFingerprint(context)` of who proposed. Records written before it keep
 * `null`. Adds the indexes `EvidenceQuery` filters are served by (disposition, stage, actor and time, each
 * with `recorded_at`; the tool-call fingerprint alone; the capability and correlation indexes already exist)
 * and one on `verdict_approval_receipts.expires_at`, which pruning expired receipts scans by.
 * `down` drops the indexes and the column.
 */
export class AddDecisionRecordActorsAndQueryIndexes1796000130000 implements MigrationInterface {
  name = 'AddDecisionRecordActorsAndQueryIndexes1796000130000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.addColumn(
      DECISIONS,
      new TableColumn({ name: 'actor_fingerprint', type: 'varchar', length: '64', isNullable: true }),
    );
    await queryRunner.createIndices(DECISIONS, DECISION_INDEXES);
    await queryRunner.createIndex(RECEIPTS, RECEIPT_EXPIRY);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.dropIndex(RECEIPTS, RECEIPT_EXPIRY.name!);
    await queryRunner.dropIndices(DECISIONS, DECISION_INDEXES);
    await queryRunner.dropColumn(DECISIONS, 'actor_fingerprint');
  }
}
