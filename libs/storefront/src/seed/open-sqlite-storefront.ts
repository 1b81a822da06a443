import { DataSource, type DataSourceOptions } from 'typeorm';
import { storefrontEntities } from '../entities/storefront-entities.js';
import { storefrontMigrations } from '../migrations/storefront-migrations.js';
import { seedStorefront } from './seed-storefront.js';

/** Options of {@link openSqliteStorefront}. */
export interface SqliteStorefrontOptions {
  /** better-sqlite3 database file. Default: `':memory:'` (private to this DataSource). */
  readonly database?: string;
  /** More entities for the same database (e.g. `verdictEntities`). Default: none. */
  readonly entities?: NonNullable<DataSourceOptions['entities']>;
  /** More migrations for the same database (e.g. `verdictMigrations`). Default: none. */
  readonly migrations?: NonNullable<DataSourceOptions['migrations']>;
}

/**
 * An initialized embedded-SQLite (`type: 'better-sqlite3'`) DataSource with every migration run and the
 * storefront seeded: what the lab, e2e tests and benchmarks start from. Destroy it when done.
 *
 * @example
 * const dataSource = await openSqliteStorefront({ entities: verdictEntities, migrations: verdictMigrations });
 */
export async function openSqliteStorefront(options: SqliteStorefrontOptions = {}): Promise<DataSource> {
  const dataSource = new DataSource({
    type: 'better-sqlite3',
    database: options.database ?? ':memory:',
    entities: [...storefrontEntities, ...asArray(options.entities)],
    migrations: [...storefrontMigrations, ...asArray(options.migrations)],
  });
  await dataSource.initialize();
  try {
    await dataSource.runMigrations({ transaction: 'each' });
    await seedStorefront(dataSource);
  } catch (error) {
    await dataSource.destroy();
    throw error;
  }
  return dataSource;
}

function asArray<T>(value: T[] | Record<string, T> | undefined): T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : Object.values(value);
}
