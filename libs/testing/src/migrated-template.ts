import { createHash } from 'node:crypto';
import { copyFile, mkdir, readdir, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import type { DataSourceOptions, Logger } from 'typeorm';

/**
 * Migrated templates: a test's fresh database is a copy of one this process migrated once, not a new run of every
 * migration (a few hundred milliseconds each time on SQLite and PostgreSQL, about a second on MariaDB). A copy is
 * exact or none is made: SQLite copies the migrated file; MariaDB copies each table (`CREATE TABLE … LIKE`, its rows
 * with it) only when the migrated schema holds nothing else (no trigger, view, routine, event or foreign key), and the
 * caller migrates as before otherwise; PostgreSQL replays, in one round trip, the statements the first run sent that
 * changed its schema. Templates are keyed by the migrations' names and source, in this process's name.
 */

/** What a template is made of: the entities and the migrations, as `openDataSource` takes them. */
export interface TemplateSource {
  readonly entities: DataSourceOptions['entities'];
  readonly migrations: DataSourceOptions['migrations'];
}

/**
 * The key of a template of `migrations`, or `undefined` when they cannot be keyed by what they are (a glob of files):
 * those are migrated each time.
 */
export function templateKey(migrations: DataSourceOptions['migrations']): string | undefined {
  if (!Array.isArray(migrations) || !migrations.every((migration) => typeof migration === 'function')) return undefined;
  const hash = createHash('sha256');
  for (const migration of migrations as unknown as { name: string; toString(): string }[])
    hash.update(migration.name).update('\0').update(migration.toString()).update('\0');
  return `${process.pid}_${hash.digest('hex').slice(0, 16)}`;
}

/** Copies a migrated SQLite template of `source` to `database` (made once per process and key). */
export async function copySqliteTemplate(key: string, source: TemplateSource, database: string): Promise<void> {
  const directory = join(tmpdir(), 'verdict-templates');
  const template = join(directory, `${key}.sqlite`);
  try {
    await copyFile(template, database);
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  await mkdir(directory, { recursive: true });
  await removeDeadTemplates(directory);
  // Migrated under another name and renamed when complete: a template half made by a killed process is never copied.
  const making = `${template}.${process.hrtime.bigint()}`;
  const dataSource = new DataSource({ type: 'better-sqlite3', database: making, ...source });
  await dataSource.initialize();
  try {
    await dataSource.runMigrations({ transaction: 'each' });
  } finally {
    await dataSource.destroy();
  }
  await rename(making, template);
  await copyFile(template, database);
}

/** Removes the SQLite templates of processes that are gone. */
async function removeDeadTemplates(directory: string): Promise<void> {
  for (const file of await readdir(directory)) {
    const pid = Number(file.split('_')[0]);
    if (Number.isInteger(pid) && pid !== process.pid && !isAlive(pid)) await rm(join(directory, file), { force: true });
  }
}

/**
 * The statements a run of each keyed migration list sent to a PostgreSQL schema that changed it, as one script, and
 * the name of the schema they were sent to; `null` when the run sent a statement that cannot be replayed as text.
 */
const postgresScripts = new Map<string, { readonly schema: string; readonly script: string } | null>();

/** What a statement that only reads, or that opens or ends a transaction, starts with: never replayed. */
const READ_OR_TRANSACTION = /^\s*(?:SELECT|SHOW|START TRANSACTION|BEGIN|COMMIT|ROLLBACK)\b/i;

/**
 * Migrates the fresh, empty PostgreSQL schema of `dataSource` (not initialized yet): the first time for `key` in this
 * process by running the migrations on a connection of their own, and recording what they sent; afterwards by
 * initializing `dataSource` and replaying that record with this schema's name, in one round trip and one transaction.
 * Answers `false` when the record cannot be replayed (the caller migrates). Statements without parameters are replayed
 * as they were sent; the migrations table's rows, the only parameterized ones, with their numbers and strings written
 * as literals.
 */
export async function copyPostgresTemplate(
  key: string,
  source: TemplateSource,
  dataSource: DataSource,
): Promise<boolean> {
  const options = dataSource.options as DataSourceOptions & { schema: string };
  const recorded = postgresScripts.get(key);
  if (recorded === undefined) {
    postgresScripts.set(key, await recordPostgresMigrations(source, options));
    return true;
  }
  if (recorded === null) return false;
  await dataSource.initialize();
  // A test schema's commit need not wait for the disk.
  const script = recorded.script.split(recorded.schema).join(options.schema);
  await dataSource.query(`BEGIN; SET LOCAL synchronous_commit TO OFF; ${script}; COMMIT`);
  return true;
}

/** Runs the migrations on the empty schema `options.schema` and returns what they sent that changed it. */
async function recordPostgresMigrations(
  source: TemplateSource,
  options: DataSourceOptions & { schema: string },
): Promise<{ schema: string; script: string } | null> {
  const sent: { query: string; parameters: readonly unknown[] }[] = [];
  const ignore = () => undefined;
  const logger: Logger = {
    logQuery: (query, parameters) => {
      sent.push({ query, parameters: Array.isArray(parameters) ? parameters : [] });
    },
    logQueryError: ignore,
    logQuerySlow: ignore,
    logSchemaBuild: ignore,
    logMigration: ignore,
    log: ignore,
  };
  const dataSource = new DataSource({ ...options, ...source, logger, logging: ['query'] } as DataSourceOptions);
  await dataSource.initialize();
  try {
    sent.length = 0;
    await dataSource.runMigrations({ transaction: 'each' });
  } finally {
    await dataSource.destroy();
  }
  const statements: string[] = [];
  for (const { query, parameters } of sent) {
    if (READ_OR_TRANSACTION.test(query)) continue;
    const literals = parameters.map(postgresLiteral);
    if (literals.some((literal) => literal === undefined)) return null;
    // $10 before $1: each placeholder is replaced by its own literal.
    let statement = query;
    for (let index = literals.length; index >= 1; index--)
      statement = statement.split(`$${index}`).join(literals[index - 1]!);
    statements.push(statement);
  }
  return { schema: options.schema, script: statements.join(';\n') };
}

/** A number or a string as a PostgreSQL literal (standard-conforming strings); `undefined` for anything else. */
function postgresLiteral(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  if (typeof value === 'string') return `'${value.split("'").join("''")}'`;
  return undefined;
}

/** A MariaDB database's schema objects a table-by-table copy would leave out. */
const UNCOPIED = [
  'SELECT COUNT(*) AS n FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = ?',
  'SELECT COUNT(*) AS n FROM information_schema.VIEWS WHERE TABLE_SCHEMA = ?',
  'SELECT COUNT(*) AS n FROM information_schema.ROUTINES WHERE ROUTINE_SCHEMA = ?',
  'SELECT COUNT(*) AS n FROM information_schema.EVENTS WHERE EVENT_SCHEMA = ?',
  'SELECT COUNT(*) AS n FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = ?',
];

/** The table that marks a MariaDB template complete and copyable. */
const READY = 'verdict_template_ready';

/**
 * Fills the empty MariaDB database `database` from a migrated template of `source` (made once per process and key,
 * on the server `server` reaches), and answers whether it did: `false` when the migrated schema holds objects a
 * table-by-table copy would leave out; then the caller migrates `database` itself.
 */
export async function copyMariadbTemplate(
  key: string,
  source: TemplateSource,
  server: DataSourceOptions & { url: string },
  database: string,
): Promise<boolean> {
  const template = `verdict_tpl_${key}`;
  const admin = await new DataSource(server).initialize();
  try {
    let tables = await readyTables(admin, template);
    if (tables === undefined) {
      await makeMariadbTemplate(admin, template, source, server);
      tables = await readyTables(admin, template);
    }
    if (tables === null || tables === undefined) return false;
    for (const table of tables.all)
      await admin.query(`CREATE TABLE \`${database}\`.\`${table}\` LIKE \`${template}\`.\`${table}\``);
    for (const table of tables.filled)
      await admin.query(`INSERT INTO \`${database}\`.\`${table}\` SELECT * FROM \`${template}\`.\`${table}\``);
    return true;
  } finally {
    await admin.destroy();
  }
}

/** A template's tables, and those with rows (the migrations table). */
interface TemplateTables {
  readonly all: readonly string[];
  readonly filled: readonly string[];
}

/** The tables of a complete template: `undefined` when there is none yet, `null` when a copy would leave out some. */
async function readyTables(admin: DataSource, template: string): Promise<TemplateTables | null | undefined> {
  const names = await tablesOf(admin, template);
  if (!names.includes(READY)) return undefined;
  const [ready]: { copyable: number | string; filled: string }[] = await admin.query(
    `SELECT copyable, filled FROM \`${template}\`.\`${READY}\``,
  );
  if (Number(ready!.copyable) !== 1) return null;
  return { all: names.filter((name) => name !== READY), filled: JSON.parse(ready!.filled) as string[] };
}

async function tablesOf(admin: DataSource, schema: string): Promise<string[]> {
  const rows: { name: string }[] = await admin.query(
    "SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE'",
    [schema],
  );
  return rows.map(({ name }) => name);
}

async function makeMariadbTemplate(
  admin: DataSource,
  template: string,
  source: TemplateSource,
  server: DataSourceOptions & { url: string },
): Promise<void> {
  await dropDeadTemplates(admin);
  await admin.query(`DROP DATABASE IF EXISTS \`${template}\``);
  await admin.query(`CREATE DATABASE \`${template}\` CHARACTER SET utf8mb4`);
  const url = new URL(server.url);
  url.pathname = `/${template}`;
  const dataSource = new DataSource({ ...server, url: url.href, ...source } as DataSourceOptions);
  await dataSource.initialize();
  try {
    await dataSource.runMigrations({ transaction: 'each' });
  } finally {
    await dataSource.destroy();
  }
  let uncopied = 0;
  for (const sql of UNCOPIED) uncopied += Number(((await admin.query(sql, [template])) as { n: number }[])[0]!.n);
  const filled: string[] = [];
  for (const table of await tablesOf(admin, template)) {
    const [row] = await admin.query(`SELECT EXISTS (SELECT 1 FROM \`${template}\`.\`${table}\`) AS filled`);
    if (Number((row as { filled: number | string }).filled) === 1) filled.push(table);
  }
  await admin.query(`CREATE TABLE \`${template}\`.\`${READY}\` (copyable TINYINT NOT NULL, filled TEXT NOT NULL)`);
  await admin.query(`INSERT INTO \`${template}\`.\`${READY}\` VALUES (?, ?)`, [
    uncopied === 0 ? 1 : 0,
    JSON.stringify(filled),
  ]);
}

/** Drops the templates of processes that are gone: each process makes its own, and none outlives the test run. */
async function dropDeadTemplates(admin: DataSource): Promise<void> {
  const rows: { name: string }[] = await admin.query(
    "SELECT SCHEMA_NAME AS name FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE 'verdict\\_tpl\\_%'",
  );
  for (const { name } of rows) {
    const pid = Number(name.split('_')[2]);
    if (Number.isInteger(pid) && pid !== process.pid && !isAlive(pid))
      await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
