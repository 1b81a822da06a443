import type { QueryRunner } from 'typeorm';
import { exactCollation } from './1795996093417-create-approval-receipts.js';

/** A text column as an earlier migration created it: its name, its type and whether it takes `NULL`. */
export interface CollatedColumn {
  readonly name: string;
  readonly type: string;
  readonly nullable?: boolean;
}

/**
 * On MySQL/MariaDB, redefines each of `columns` of `table` as it is, in one ALTER TABLE (one rebuild): with the
 * binary, no-pad collation receipt ids have when `exact` (a value then matches itself only), else with the table's
 * default character set and collation again. Nothing on the other engines, which compare exactly already.
 */
export async function collateColumns(
  queryRunner: QueryRunner,
  table: string,
  columns: readonly CollatedColumn[],
  exact: boolean,
): Promise<void> {
  const { charset, collation } = await exactCollation(queryRunner);
  if (collation === undefined) return;
  // With no character set named, MySQL/MariaDB give the column the table's default one and its collation.
  const collate = exact ? ` CHARACTER SET ${charset} COLLATE ${collation}` : '';
  const q = (name: string) => queryRunner.connection.driver.escape(name);
  const redefined = columns.map(
    ({ name, type, nullable }) => `MODIFY ${q(name)} ${type}${collate} ${nullable === true ? 'NULL' : 'NOT NULL'}`,
  );
  await queryRunner.query(`ALTER TABLE ${q(table)} ${redefined.join(', ')}`);
}
