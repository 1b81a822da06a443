import type { TableColumnOptions } from 'typeorm';
import { VerdictConfigurationError } from '../../errors/configuration.error.js';

/**
 * A column type that keeps a UTC instant to the millisecond, for Verdict's migrations. PostgreSQL's
 * `timestamp` (without time zone) would store the Node process's local wall time, and MySQL's
 * `timestamp` converts through the session time zone and ends in 2038, so neither is used.
 * `table` only names the table in the error for an unsupported engine.
 */
export function utcInstantColumn(engine: string, table: string): Omit<TableColumnOptions, 'name'> {
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
      throw new VerdictConfigurationError(
        `Verdict migrations support SQLite, PostgreSQL and MySQL/MariaDB, not "${engine}". Create ${table} with a migration of your own.`,
      );
  }
}
