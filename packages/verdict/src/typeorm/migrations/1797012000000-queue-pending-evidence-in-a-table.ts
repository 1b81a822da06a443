import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The queue of records no seal has linked yet, on PostgreSQL. */
export const PENDING_EVIDENCE = 'verdict_evidence_pending';
const RECORD_TABLES = [
  { table: 'verdict_decision_records', kind: 'decision' },
  { table: 'verdict_release_records', kind: 'release' },
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
 * The marks already set move into the queue; `link_pending` loses its default and keeps its partial index, empty
 * now, so that an older sealer still running finds (nothing) by it rather than by reading every record. The
 * function resolves the queue by the search path the migration ran with, whoever inserts. SQLite and MySQL/MariaDB,
 * which update a row in place, keep `link_pending`: nothing changes there. Each step can run again after a failed run
 * outside a transaction. `down` marks the queued records again and drops the trigger, the function and the table.
 */
export class QueuePendingEvidenceInATable1797012000000 implements MigrationInterface {
  name = 'QueuePendingEvidenceInATable1797012000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.driver.options.type !== 'postgres') return;
    await queryRunner.query(
      `CREATE TABLE IF NOT EXISTS ${PENDING_EVIDENCE} (kind varchar(16) NOT NULL, stream varchar(128) NOT NULL, recorded_at timestamptz(3) NOT NULL, record_id varchar(64) NOT NULL, CONSTRAINT pk_${PENDING_EVIDENCE} PRIMARY KEY (kind, stream, recorded_at, record_id))`,
    );
    // The kind is the trigger's argument; `fresh` holds the rows the statement inserted. A queue row left by a record
    // deleted by hand does not fail the write of the same record again.
    await queryRunner.query(
      `CREATE OR REPLACE FUNCTION ${QUEUE_FUNCTION}() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$ BEGIN INSERT INTO ${PENDING_EVIDENCE} (kind, stream, recorded_at, record_id) SELECT TG_ARGV[0], stream, recorded_at, id FROM fresh ON CONFLICT DO NOTHING; RETURN NULL; END $$`,
    );
    for (const { table, kind } of RECORD_TABLES) {
      // The trigger first, then the default dropped, then the marks moved: a row written in between (outside a
      // transaction) is both queued and marked, never neither; the move skips what is queued already.
      await queryRunner.query(`DROP TRIGGER IF EXISTS ${trigger(table)} ON ${table}`);
      await queryRunner.query(
        `CREATE TRIGGER ${trigger(table)} AFTER INSERT ON ${table} REFERENCING NEW TABLE AS fresh FOR EACH STATEMENT EXECUTE FUNCTION ${QUEUE_FUNCTION}('${kind}')`,
      );
      await queryRunner.query(`ALTER TABLE ${table} ALTER COLUMN link_pending DROP DEFAULT`);
      await queryRunner.query(
        `INSERT INTO ${PENDING_EVIDENCE} (kind, stream, recorded_at, record_id) SELECT '${kind}', stream, recorded_at, id FROM ${table} WHERE link_pending = 1 ON CONFLICT DO NOTHING`,
      );
      await queryRunner.query(`UPDATE ${table} SET link_pending = NULL WHERE link_pending = 1`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    if (queryRunner.connection.driver.options.type !== 'postgres') return;
    for (const { table, kind } of [...RECORD_TABLES].reverse()) {
      // The default first, then the trigger dropped: a row written in between is marked or queued (and marked below).
      await queryRunner.query(`ALTER TABLE ${table} ALTER COLUMN link_pending SET DEFAULT 1`);
      await queryRunner.query(`DROP TRIGGER IF EXISTS ${trigger(table)} ON ${table}`);
      await queryRunner.query(
        `UPDATE ${table} r SET link_pending = 1 FROM ${PENDING_EVIDENCE} p WHERE p.kind = '${kind}' AND p.record_id = r.id`,
      );
    }
    await queryRunner.query(`DROP FUNCTION IF EXISTS ${QUEUE_FUNCTION}()`);
    await queryRunner.query(`DROP TABLE IF EXISTS ${PENDING_EVIDENCE}`);
  }
}
