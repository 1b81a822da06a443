import { Table } from 'typeorm';
import type { QueryRunner, TableColumnOptions, TableOptions } from 'typeorm';
import { utcInstantColumn } from './utc-instant-column.js';

/** The engine's UTC instant column type, to spread into a column with its name: `{ ...instant, name: 'created_at' }`. */
export type InstantColumn = Omit<TableColumnOptions, 'name'>;

/** The character set that holds every Unicode character on MySQL/MariaDB (their `utf8`/`utf8mb3` has no emoji). */
export const UNICODE_CHARSET = 'utf8mb4';

/** A column type that has a character set on MySQL/MariaDB. */
const CHARACTER_TYPE = /char|text/i;

/**
 * {@link UNICODE_CHARSET} when the DataSource is MySQL/MariaDB and its database's default character set is another
 * one (MariaDB's upstream default is `latin1`): a text column created without a character set would then refuse an
 * emoji, or any character outside it (ADR 0196). `undefined` when the database's default holds every character, or
 * on another engine (SQLite and PostgreSQL store every character in any text column).
 */
export async function missingUnicodeCharset(queryRunner: QueryRunner): Promise<typeof UNICODE_CHARSET | undefined> {
  if (!['mysql', 'mariadb', 'aurora-mysql'].includes(queryRunner.connection.options.type)) return undefined;
  const [{ charset }] = (await queryRunner.query('SELECT @@character_set_database AS charset')) as Array<{
    charset: string;
  }>;
  return charset === UNICODE_CHARSET ? undefined : UNICODE_CHARSET;
}

/**
 * Creates Verdict's table `name` with the columns and indices `define` returns, for Verdict's migrations.
 * `define` receives {@link utcInstantColumn} for the DataSource's engine (which throws for an engine
 * Verdict's migrations do not support). On MySQL/MariaDB every text column holds every Unicode character whatever
 * the database's default character set (ADR 0196): where that default is not `utf8mb4`, each text column `define`
 * gives no character set is created `utf8mb4` (with that character set's default collation), and so is the table's
 * default, which columns added to it later take. A column with its own character set and collation (the id
 * columns' binary, no-pad one) keeps them. Where the default is `utf8mb4` already, the table is created as before.
 */
export async function createVerdictTable(
  queryRunner: QueryRunner,
  name: string,
  define: (instant: InstantColumn) => Omit<TableOptions, 'name'>,
): Promise<void> {
  const instant = utcInstantColumn(queryRunner.connection.options.type, name);
  const charset = await missingUnicodeCharset(queryRunner);
  const options = define(instant);
  const columns =
    charset === undefined
      ? options.columns
      : options.columns?.map((column) =>
          column.charset === undefined && CHARACTER_TYPE.test(column.type) ? { ...column, charset } : column,
        );
  await queryRunner.createTable(new Table({ name, ...options, columns }));
  // Only the table's default: the columns just created keep theirs (CONVERT TO would reset the id columns' collation).
  if (charset !== undefined)
    await queryRunner.query(
      `ALTER TABLE ${queryRunner.connection.driver.escape(name)} DEFAULT CHARACTER SET ${charset}`,
    );
}
