import { Table } from 'typeorm';
import type { QueryRunner, TableColumnOptions, TableOptions } from 'typeorm';
import { utcInstantColumn } from './utc-instant-column.js';

/** The engine's UTC instant column type, to spread into a column with its name: `{ ...instant, name: 'created_at' }`. */
export type InstantColumn = Omit<TableColumnOptions, 'name'>;

/**
 * Creates Verdict's table `name` with the columns and indices `define` returns, for Verdict's migrations.
 * `define` receives {@link utcInstantColumn} for the DataSource's engine (which throws for an engine
 * Verdict's migrations do not support).
 */
export async function createVerdictTable(
  queryRunner: QueryRunner,
  name: string,
  define: (instant: InstantColumn) => Omit<TableOptions, 'name'>,
): Promise<void> {
  const instant = utcInstantColumn(queryRunner.connection.options.type, name);
  await queryRunner.createTable(new Table({ name, ...define(instant) }));
}
