import type { MigrationInterface, QueryRunner } from 'typeorm';
import { collateColumns } from './collated-columns.js';

const TABLE = 'verdict_containments';

/** The key columns of `verdict_containments`, as `CreateContainments1796000240000` creates them. */
const KEY_COLUMNS = [
  { name: 'scope', type: 'varchar(16)' },
  { name: 'subject', type: 'varchar(255)' },
] as const;

/**
 * On MySQL/MariaDB, gives the key of `verdict_containments` (scope, subject) the binary, no-pad collation receipt
 * ids have: the server's default one is case-insensitive and ignores trailing spaces, so with `Reports.export`
 * contained, engaging `reports.export` was taken for a repeat (`INSERT IGNORE` met the same key) and nothing was
 * switched off, and releasing one released the other. A subject now matches itself only, as on SQLite and PostgreSQL,
 * which compare exactly already: there it does nothing. Actor and tenant subjects are hex fingerprints, which no
 * collation tells apart differently. One ALTER TABLE, which rebuilds the table once; the switches are kept (two
 * engagements differing only in case cannot exist yet). `down` gives the columns the table's default collation again,
 * and fails while two switches differ only in case.
 */
export class CompareContainmentsExactly1797015000000 implements MigrationInterface {
  name = 'CompareContainmentsExactly1797015000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await collateColumns(queryRunner, TABLE, KEY_COLUMNS, true);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await collateColumns(queryRunner, TABLE, KEY_COLUMNS, false);
  }
}
