import type { MigrationInterface, QueryRunner } from 'typeorm';
import { longTextType } from './long-text-type.js';
import { UNICODE_CHARSET } from './verdict-table.js';

/** A text column widened: its name and whether it takes `NULL`, as its table's migration creates it (`text`). */
interface WidenedColumn {
  readonly name: string;
  readonly nullable: boolean;
}

/** The texts widened, by table. */
const WIDENED: ReadonlyArray<readonly [string, readonly WidenedColumn[]]> = [
  // CreateReviewItems1796000125000.
  [
    'verdict_review_items',
    [
      { name: 'arguments', nullable: false },
      { name: 'requester_key', nullable: false },
      { name: 'description', nullable: true },
      { name: 'subject', nullable: true },
    ],
  ],
  // CreateApprovalReceipts1795996093417.
  [
    'verdict_approval_receipts',
    [
      { name: 'description', nullable: true },
      { name: 'subject', nullable: true },
    ],
  ],
];

/**
 * On MySQL/MariaDB, gives a review item's arguments, requester key, description and subject, and an approval
 * receipt's description and subject, the long text type ({@link longTextType}) in `utf8mb4` (ADR 0196): their
 * `text` held 64 KiB, while the other engines keep a text of any length, so a proposal whose arguments (or a
 * description or subject built from them) passed it failed after its `proposal` record was written. A column of
 * another character set (a database created `latin1`, MariaDB's upstream default) is converted to `utf8mb4`, so that
 * it holds every character; one in `utf8mb4` keeps its collation. Nothing on the other engines. One ALTER TABLE per
 * table, which rebuilds it once; rows are kept. `down` gives the columns `text` again, still `utf8mb4` (a character
 * `latin1` cannot hold would be lost), and refuses, before changing anything, while a value exceeds 64 KiB (without
 * strict mode MySQL/MariaDB would cut it, and a cut JSON column is an unreadable item).
 */
export class WidenReviewAndReceiptTexts1797040196000 implements MigrationInterface {
  name = 'WidenReviewAndReceiptTexts1797040196000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await retype(queryRunner, longTextType(queryRunner.connection.options.type));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await refuseLongValues(queryRunner);
    await retype(queryRunner, 'text');
  }
}

/** Gives each of {@link WIDENED} `type` in `utf8mb4` on MySQL/MariaDB, where `text` is not the long text type. */
async function retype(queryRunner: QueryRunner, type: 'longtext' | 'text'): Promise<void> {
  if (longTextType(queryRunner.connection.options.type) === 'text') return;
  const q = (name: string) => queryRunner.connection.driver.escape(name);
  for (const [table, columns] of WIDENED) {
    const collations = await unicodeCollations(queryRunner, table);
    const redefined = columns.map(({ name, nullable }) => {
      const collation = collations.get(name);
      const collate = collation === undefined ? '' : ` COLLATE ${collation}`;
      return `MODIFY ${q(name)} ${type} CHARACTER SET ${UNICODE_CHARSET}${collate} ${nullable ? 'NULL' : 'NOT NULL'}`;
    });
    await queryRunner.query(`ALTER TABLE ${q(table)} ${redefined.join(', ')}`);
  }
}

/** The most bytes a MySQL/MariaDB `text` holds. */
const TEXT_BYTES = 65_535;

/** Throws, changing nothing, when a widened column holds a value `text` cannot hold (MySQL/MariaDB only). */
async function refuseLongValues(queryRunner: QueryRunner): Promise<void> {
  if (longTextType(queryRunner.connection.options.type) === 'text') return;
  const q = (name: string) => queryRunner.connection.driver.escape(name);
  for (const [table, columns] of WIDENED)
    for (const { name } of columns) {
      const [row] = (await queryRunner.query(`SELECT MAX(LENGTH(${q(name)})) AS longest FROM ${q(table)}`)) as Array<{
        longest: number | string | null;
      }>;
      if (Number(row?.longest ?? 0) > TEXT_BYTES)
        throw new Error(
          `${table}.${name} holds a value of more than ${TEXT_BYTES} bytes, which text cannot hold: not reverted.`,
        );
    }
}

/** The collation of each column of `table` in `utf8mb4`, by name: kept as it is. */
async function unicodeCollations(queryRunner: QueryRunner, table: string): Promise<Map<string, string>> {
  const rows = (await queryRunner.query(
    'SELECT COLUMN_NAME AS name, COLLATION_NAME AS collation FROM information_schema.COLUMNS ' +
      'WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND CHARACTER_SET_NAME = ?',
    [table, UNICODE_CHARSET],
  )) as Array<{ name: string; collation: string }>;
  return new Map(rows.map((row) => [row.name, row.collation]));
}
