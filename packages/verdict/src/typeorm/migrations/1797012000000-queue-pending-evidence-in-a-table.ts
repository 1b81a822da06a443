import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The queue of records no seal has linked yet, on PostgreSQL. */
export const PENDING_EVIDENCE = 'verdict_evidence_pending';
const RECORD_TABLES = [
  { table: 'verdict_decision_records', kind: 'decision', index: 'idx_verdict_decision_records_link_pending' },
  { table: 'verdict_release_records', kind: 'release', index: 'idx_verdict_release_records_link_pending' },
];
const QUEUE_FUNCTION = 'verdict_queue_pending_evidence';
const trigger = (table: string) => `trg_${table}_pending`;

/**
 * On PostgreSQL, moves the queue of records no seal has linked yet out of the record rows (ADR 0135): a new table
 * `verdict_evidence_pending` (`kind`, `stream`, `recorded_at`, `record_id`, one primary key) that an AFTER INSERT
 * trigger of each record table fills, one INSERT ... SELECT per statement, and a seal empties as it links.
 * Clearing `link_pending` wrote a whole new version of the record and an entry in each of its ten indexes
 * (PostgreSQL cannot update in place a column an index's predicate reads); deleting a queue row writes neither. The
 * trigger queues what any writer inserts, an older Verdict's too, so a rolling upgrade leaves nothing unlinked.
 * The marks already set move into the queue; `link_pending` stays, without its default and its index, for an older
 * sealer still running. SQLite and MySQL/MariaDB, which update a row in place, keep `link_pending`: nothing changes
 * there. `down` marks the queued records again and drops the trigger, the function and the table.
 */
export class QueuePendingEvidenceInATable1797012000000 implements MigrationInterface {
  name = 'QueuePendingEvidenceInATable1797012000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.driver.options.type !== 'postgres') return;
    await queryRunner.query(
      `CREATE TABLE ${PENDING_EVIDENCE} (kind varchar(16) NOT NULL, stream varchar(128) NOT NULL, recorded_at timestamptz(3) NOT NULL, record_id varchar(64) NOT NULL, CONSTRAINT pk_${PENDING_EVIDENCE} PRIMARY KEY (kind, stream, recorded_at, record_id))`,
    );
    // The kind is the trigger's argument; `fresh` holds the rows the statement inserted.
    await queryRunner.query(
      `CREATE FUNCTION ${QUEUE_FUNCTION}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO ${PENDING_EVIDENCE} (kind, stream, recorded_at, record_id) SELECT TG_ARGV[0], stream, recorded_at, id FROM fresh; RETURN NULL; END $$`,
    );
    for (const { table, kind, index } of RECORD_TABLES) {
      await queryRunner.query(
        `CREATE TRIGGER ${trigger(table)} AFTER INSERT ON ${table} REFERENCING NEW TABLE AS fresh FOR EACH STATEMENT EXECUTE FUNCTION ${QUEUE_FUNCTION}('${kind}')`,
      );
      // Within the migration's transaction: no row is both marked and queued, none neither.
      await queryRunner.query(`ALTER TABLE ${table} ALTER COLUMN link_pending DROP DEFAULT`);
      await queryRunner.query(
        `INSERT INTO ${PENDING_EVIDENCE} (kind, stream, recorded_at, record_id) SELECT '${kind}', stream, recorded_at, id FROM ${table} WHERE link_pending = 1 ON CONFLICT DO NOTHING`,
      );
      await queryRunner.query(`UPDATE ${table} SET link_pending = NULL WHERE link_pending = 1`);
      await queryRunner.query(`DROP INDEX ${index}`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.driver.options.type !== 'postgres') return;
    for (const { table, kind, index } of [...RECORD_TABLES].reverse()) {
      await queryRunner.query(`DROP TRIGGER ${trigger(table)} ON ${table}`);
      await queryRunner.query(`ALTER TABLE ${table} ALTER COLUMN link_pending SET DEFAULT 1`);
      await queryRunner.query(
        `UPDATE ${table} r SET link_pending = 1 FROM ${PENDING_EVIDENCE} p WHERE p.kind = '${kind}' AND p.record_id = r.id`,
      );
      await queryRunner.query(`CREATE INDEX ${index} ON ${table} (stream, recorded_at, id) WHERE link_pending = 1`);
    }
    await queryRunner.query(`DROP FUNCTION ${QUEUE_FUNCTION}()`);
    await queryRunner.query(`DROP TABLE ${PENDING_EVIDENCE}`);
  }
}
