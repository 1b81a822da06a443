import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { copyMariadbTemplate, copyPostgresTemplate, copySqliteTemplate, templateKey } from './migrated-template.js';
import type { DataSourceOptions, MigrationInterface, Table } from 'typeorm';

/** The engines of the database matrix (README.md, "Tests against PostgreSQL and MariaDB"). */
export type DatabaseEngineName = 'sqlite' | 'postgres' | 'mariadb';

/** One engine a store suite runs on; `url` is set for server engines. */
export interface DatabaseEngine {
  readonly name: DatabaseEngineName;
  readonly url?: string;
}

/** What a test DataSource is built from; the schema always comes from `migrations`, never `synchronize`. */
export interface TestDataSourceOptions {
  readonly entities: DataSourceOptions['entities'];
  readonly migrations: DataSourceOptions['migrations'];
}

const SERVER_URLS = [
  ['postgres', 'VERDICT_TEST_POSTGRES_URL'],
  ['mariadb', 'VERDICT_TEST_MARIADB_URL'],
] as const;

const cleanups = new WeakMap<DataSource, () => Promise<void>>();

/**
 * The engines to run store suites on: always `sqlite`, plus `postgres` when `VERDICT_TEST_POSTGRES_URL`
 * is set and `mariadb` when `VERDICT_TEST_MARIADB_URL` is set. With `VERDICT_TEST_REQUIRE_DATABASES=1`
 * a missing URL throws, so the test file fails instead of silently running on SQLite alone.
 *
 * @example
 * for (const engine of databaseEngines()) describeExecutionClaimStoreContract(engine.name, () => setup(engine));
 */
export function databaseEngines(env: NodeJS.ProcessEnv = process.env): DatabaseEngine[] {
  const engines: DatabaseEngine[] = [{ name: 'sqlite' }];
  const missing: string[] = [];
  for (const [name, variable] of SERVER_URLS) {
    const url = env[variable];
    if (url) engines.push({ name, url });
    else missing.push(variable);
  }
  if (missing.length > 0 && !['', '0', 'false'].includes(env.VERDICT_TEST_REQUIRE_DATABASES ?? '')) {
    throw new Error(
      `VERDICT_TEST_REQUIRE_DATABASES is set but ${missing.join(' and ')} ${missing.length > 1 ? 'are' : 'is'} not: ` +
        'set the URL (CI: postgres://postgres@127.0.0.1:5432/test, mysql://root@127.0.0.1:3306/test) ' +
        'or unset VERDICT_TEST_REQUIRE_DATABASES to run on SQLite only.',
    );
  }
  return engines;
}

/**
 * An initialized DataSource on `engine`, isolated from every other test file, with `migrations` run:
 * SQLite gets a file in a fresh temporary directory (other processes may open `options.database`),
 * PostgreSQL a fresh schema `verdict_t_<random>`, MariaDB a fresh database `verdict_t_<random>`. A list of migration
 * classes is run once per process, into a template each fresh database is an exact copy of (`migrated-template.ts`);
 * migrations given otherwise are run for each. Release it with {@link dropDataSource}.
 *
 * @example
 * const dataSource = await openDataSource(engine, { entities: verdictEntities, migrations: verdictMigrations });
 */
export async function openDataSource(
  engine: DatabaseEngine,
  { entities, migrations }: TestDataSourceOptions,
): Promise<DataSource> {
  const name = `verdict_t_${randomBytes(6).toString('hex')}`;
  const { options, drop } = await provision(engine, name);
  const dataSource = new DataSource({ ...options, entities, migrations });
  const cleanup = async () => {
    try {
      if (dataSource.isInitialized) await dataSource.destroy();
    } finally {
      await drop();
    }
  };
  try {
    const copied = await copyTemplate(engine, { entities, migrations }, dataSource, name);
    if (!dataSource.isInitialized) await dataSource.initialize();
    if (!copied) await dataSource.runMigrations({ transaction: 'each' });
  } catch (error) {
    await cleanup();
    throw error;
  }
  cleanups.set(dataSource, cleanup);
  return dataSource;
}

/** Destroys a DataSource from {@link openDataSource} and drops the file, schema or database it created. */
export async function dropDataSource(dataSource: DataSource): Promise<void> {
  const cleanup = cleanups.get(dataSource);
  cleanups.delete(dataSource);
  if (cleanup) await cleanup();
  else if (dataSource.isInitialized) await dataSource.destroy();
}

/**
 * Runs `test` on a DataSource from {@link openDataSource}, and drops it afterwards whether `test` passed or not.
 *
 * @example
 * await withDataSource(engine, { entities: verdictEntities, migrations: verdictMigrations }, async (dataSource) => { ... });
 */
export async function withDataSource(
  engine: DatabaseEngine,
  options: TestDataSourceOptions,
  test: (dataSource: DataSource) => Promise<void>,
): Promise<void> {
  const dataSource = await openDataSource(engine, options);
  try {
    await test(dataSource);
  } finally {
    await dropDataSource(dataSource);
  }
}

/** Creates the isolated file, schema or database `name`; `drop` removes it. */
async function provision(
  engine: DatabaseEngine,
  name: string,
): Promise<{ options: DataSourceOptions; drop: () => Promise<void> }> {
  switch (engine.name) {
    case 'sqlite': {
      const directory = await mkdtemp(join(tmpdir(), 'verdict-t-'));
      return {
        options: { type: 'better-sqlite3', database: join(directory, 'verdict.sqlite') },
        drop: () => rm(directory, { recursive: true, force: true }),
      };
    }
    case 'postgres': {
      const server: DataSourceOptions = { type: 'postgres', url: serverUrl(engine) };
      await execute(server, `CREATE SCHEMA "${name}"`);
      return {
        // search_path too, so raw SQL in tests resolves to the isolated schema as TypeORM does.
        options: { ...server, schema: name, extra: { options: `-c search_path=${name}` } },
        drop: () => execute(server, `DROP SCHEMA IF EXISTS "${name}" CASCADE`),
      };
    }
    case 'mariadb': {
      const url = new URL(serverUrl(engine));
      // datetime(3) has no zone: with 'Z' mysql2 writes and reads it as UTC, and returns Dates, not strings.
      const server: DataSourceOptions = {
        type: url.protocol === 'mariadb:' ? 'mariadb' : 'mysql',
        url: url.href,
        timezone: 'Z',
        dateStrings: false,
      };
      await execute(server, `CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4`);
      url.pathname = `/${name}`;
      return {
        options: { ...server, url: url.href },
        drop: () => execute(server, `DROP DATABASE IF EXISTS \`${name}\``),
      };
    }
  }
}

/**
 * Fills the fresh database `name` of `dataSource` (initializing it on PostgreSQL, where the copy runs on its
 * connection) from a migrated template when the engine can copy one exactly (`migrated-template.ts`); `false` when
 * the caller must run the migrations.
 */
async function copyTemplate(
  engine: DatabaseEngine,
  source: TestDataSourceOptions,
  dataSource: DataSource,
  name: string,
): Promise<boolean> {
  const options = dataSource.options;
  const key = templateKey(source.migrations);
  if (key === undefined) return false;
  switch (engine.name) {
    case 'sqlite':
      await copySqliteTemplate(key, source, options.database as string);
      return true;
    case 'mariadb':
      // The server's own database, as `provision` reached it to create this one.
      return copyMariadbTemplate(key, source, { ...options, url: serverUrl(engine) }, name);
    case 'postgres':
      return copyPostgresTemplate(key, source, dataSource);
  }
}

function serverUrl(engine: DatabaseEngine): string {
  if (!engine.url) throw new Error(`The ${engine.name} engine has no URL: take engines from databaseEngines().`);
  return engine.url;
}

/** Runs one statement on a short-lived connection of its own. */
async function execute(options: DataSourceOptions, sql: string): Promise<void> {
  const dataSource = await new DataSource(options).initialize();
  try {
    await dataSource.query(sql);
  } finally {
    await dataSource.destroy();
  }
}

/**
 * Runs `migration` down — failing unless its table is gone — and up again, and returns the table as the
 * engine now describes it, for a test to check keys and indexes.
 */
export async function remigrate(dataSource: DataSource, migration: MigrationInterface, table: string): Promise<Table> {
  const queryRunner = dataSource.createQueryRunner();
  try {
    await migration.down(queryRunner);
    if (await queryRunner.hasTable(table))
      throw new Error(`${migration.constructor.name}.down left ${table} in place.`);
    await migration.up(queryRunner);
    const created = await queryRunner.getTable(table);
    if (created === undefined) throw new Error(`${migration.constructor.name}.up did not create ${table}.`);
    return created;
  } finally {
    await queryRunner.release();
  }
}
