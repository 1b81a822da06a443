import type { DataSource } from 'typeorm';

const unnamed = new WeakSet<DataSource>();

/**
 * Makes Verdict's TypeORM stores on `dataSource` send their PostgreSQL statements unnamed (parsed and planned on
 * every call, as TypeORM's own queries are) instead of as named prepared statements (ADR 0113). For a DataSource
 * behind a pooler that does not keep a server session per client connection, such as PgBouncer in transaction
 * pooling mode before 1.21 or without `max_prepared_statements`, where a statement prepared on one server session
 * is missing on the next. Call it once, before the stores' first statement; it changes nothing on SQLite or
 * MySQL/MariaDB, whose store statements are never named.
 *
 * @example const dataSource = useUnnamedStatements(new DataSource({ type: 'postgres', url: pgbouncerUrl, ... }));
 */
export function useUnnamedStatements(dataSource: DataSource): DataSource {
  unnamed.add(dataSource);
  return dataSource;
}

/** Whether {@link useUnnamedStatements} was called for `dataSource`. */
export function usesUnnamedStatements(dataSource: DataSource): boolean {
  return unnamed.has(dataSource);
}
