import type { MigrationInterface, QueryRunner } from 'typeorm';

const RECORD_TABLES = [
  { table: 'verdict_decision_records', kind: 'decision', index: 'idx_verdict_decision_records_link_pending' },
  { table: 'verdict_release_records', kind: 'release', index: 'idx_verdict_release_records_link_pending' },
];
const LINKS = 'verdict_evidence_links';

/**
 * Marks the evidence records no seal has linked yet (ADR 0062) on SQLite, PostgreSQL and MySQL/MariaDB:
 * adds `link_pending` to the decision and release records (`1` until a seal links the record, then
 * `NULL`, or `0` on MySQL/MariaDB since ADR 0142; a new row gets `1` from the column default, so writers send
 * nothing more) and an index a seal reads its next batch from: on PostgreSQL and SQLite a partial index (`stream`, `recorded_at`, `id`) of
 * the pending rows only; on MySQL/MariaDB, which have no partial indexes, (`link_pending`, `stream`,
 * `recorded_at`, `id`). Records written before it are marked pending when no link names them. The
 * column is Verdict's, not an entity column, as `verdict_evidence_links` is not an entity. `down` drops
 * the index and the column.
 */
export class QueueUnlinkedEvidence1797000500000 implements MigrationInterface {
  name = 'QueueUnlinkedEvidence1797000500000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const type = queryRunner.connection.driver.options.type;
    const mysql = type === 'mysql' || type === 'mariadb';
    const q = (name: string) => queryRunner.connection.driver.escape(name);
    for (const { table, kind, index } of RECORD_TABLES) {
      const unlinked = `NOT EXISTS (SELECT 1 FROM ${q(LINKS)} l WHERE l.kind = '${kind}' AND l.record_id = ${q(table)}.id)`;
      if (type === 'postgres' || mysql) {
        // The column without a default, then the default, then the mark of the unlinked rows: a row written
        // meanwhile (MySQL/MariaDB commit each DDL statement) is marked by the default or by the UPDATE.
        await queryRunner.query(`ALTER TABLE ${q(table)} ADD ${q('link_pending')} smallint NULL`);
        await queryRunner.query(`ALTER TABLE ${q(table)} ALTER COLUMN ${q('link_pending')} SET DEFAULT 1`);
        await queryRunner.query(`UPDATE ${q(table)} SET ${q('link_pending')} = 1 WHERE ${unlinked}`);
      } else {
        // SQLite cannot add a default later: every row is marked, then the linked ones unmarked.
        await queryRunner.query(`ALTER TABLE ${q(table)} ADD ${q('link_pending')} smallint NULL DEFAULT 1`);
        await queryRunner.query(`UPDATE ${q(table)} SET ${q('link_pending')} = NULL WHERE NOT (${unlinked})`);
      }
      await queryRunner.query(
        mysql
          ? `CREATE INDEX ${q(index)} ON ${q(table)} (${q('link_pending')}, ${q('stream')}, ${q('recorded_at')}, ${q('id')})`
          : `CREATE INDEX ${q(index)} ON ${q(table)} (${q('stream')}, ${q('recorded_at')}, ${q('id')}) WHERE ${q('link_pending')} = 1`,
      );
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const type = queryRunner.connection.driver.options.type;
    const q = (name: string) => queryRunner.connection.driver.escape(name);
    for (const { table, index } of [...RECORD_TABLES].reverse()) {
      await queryRunner.query(
        type === 'mysql' || type === 'mariadb' ? `DROP INDEX ${q(index)} ON ${q(table)}` : `DROP INDEX ${q(index)}`,
      );
      await queryRunner.dropColumn(table, 'link_pending');
    }
  }
}
