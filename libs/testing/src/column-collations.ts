import type { DataSource, QueryRunner } from 'typeorm';

const isMysql = (dataSource: DataSource) =>
  dataSource.options.type === 'mysql' || dataSource.options.type === 'mariadb';

/** On MySQL/MariaDB, each of `columns` of `table` and its collation, by name; elsewhere nothing (no collation to read). */
export async function columnCollations(
  dataSource: DataSource,
  table: string,
  columns: readonly string[],
): Promise<Array<[string, string]>> {
  if (!isMysql(dataSource)) return [];
  const rows = (await dataSource.query(
    `SELECT COLUMN_NAME AS name, COLLATION_NAME AS collation FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND COLUMN_NAME IN (${columns.map(() => '?').join(', ')}) ORDER BY COLUMN_NAME`,
    [table, ...columns],
  )) as Array<{ name: string; collation: string }>;
  return rows.map((row) => [row.name, row.collation]);
}

/** On MySQL/MariaDB, each of `columns` (sorted by name) with `table`'s default collation: what a column without one has. */
export async function tableDefaultCollations(
  dataSource: DataSource,
  table: string,
  columns: readonly string[],
): Promise<Array<[string, string]>> {
  const [{ collation }] = (await dataSource.query(
    'SELECT TABLE_COLLATION AS collation FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?',
    [table],
  )) as Array<{ collation: string }>;
  return [...columns].sort().map((column) => [column, collation]);
}

/** Runs `run` on a query runner of its own (a migration's `up` or `down`), released afterwards. */
export async function onOwnRunner(
  dataSource: DataSource,
  run: (queryRunner: QueryRunner) => Promise<void>,
): Promise<void> {
  const queryRunner = dataSource.createQueryRunner();
  try {
    await run(queryRunner);
  } finally {
    await queryRunner.release();
  }
}
