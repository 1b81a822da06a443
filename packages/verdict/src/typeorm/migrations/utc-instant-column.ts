import type { TableColumnOptions } from 'typeorm';
import { VerdictConfigurationError } from '../../errors/configuration.error.js';

/** How an engine keeps a UTC instant: its column type, and the fractional-second digits when the type takes them. */
export type UtcInstantType = Required<Pick<TableColumnOptions, 'type'>> & Pick<TableColumnOptions, 'precision'>;

/**
 * The column type that keeps a UTC instant to the millisecond on `engine`, or `undefined` for an engine Verdict's
 * migrations do not support. PostgreSQL's `timestamp` (without time zone) would store the Node process's local
 * wall time, and MySQL's `timestamp` converts through the session time zone and ends in 2038, so neither is used.
 * Verdict's entities take the same type (ADR 0116), so that TypeORM sees the column the migrations created.
 */
export function utcInstantType(engine: string): UtcInstantType | undefined {
  switch (engine) {
    case 'postgres':
    case 'aurora-postgres':
    case 'cockroachdb':
      return { type: 'timestamptz', precision: 3 };
    case 'mysql':
    case 'mariadb':
    case 'aurora-mysql':
      // datetime has no zone: the DataSource must use `timezone: 'Z'` so mysql2 writes and reads UTC.
      return { type: 'datetime', precision: 3 };
    case 'better-sqlite3':
    case 'sqljs':
    case 'capacitor':
    case 'cordova':
    case 'expo':
    case 'nativescript':
    case 'react-native':
      // SQLite keeps TypeORM's UTC text form, 'YYYY-MM-DD HH:MM:SS.SSS'.
      return { type: 'datetime' };
    default:
      return undefined;
  }
}

/**
 * {@link utcInstantType} for Verdict's migrations, which throws for an unsupported engine. `table` only names the
 * table in the error.
 */
export function utcInstantColumn(engine: string, table: string): Omit<TableColumnOptions, 'name'> {
  const instant = utcInstantType(engine);
  if (instant === undefined)
    throw new VerdictConfigurationError(
      `Verdict migrations support SQLite, PostgreSQL and MySQL/MariaDB, not "${engine}". Create ${table} with a migration of your own.`,
    );
  return instant;
}
