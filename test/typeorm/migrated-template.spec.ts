import { describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { type DatabaseEngine, databaseEngines, dropDataSource, openDataSource } from '@verdict/testing-kit';

/**
 * `openDataSource` copies a template this process migrated once (SQLite: the file; MariaDB: table by table) instead
 * of running every migration for each test: the copy must be the schema the migrations make — every table as the
 * engine describes it, and the migrations table's rows, so a test that runs a migration down and up finds it run.
 */
const source = { entities: verdictEntities, migrations: verdictMigrations };

/** Every table as the engine describes it (its DDL), and the migrations that ran, in order. */
async function schemaOf(dataSource: DataSource, engine: DatabaseEngine) {
  const tables: { name: string; ddl: string }[] =
    engine.name === 'sqlite'
      ? await dataSource.query('SELECT name, sql AS ddl FROM sqlite_master WHERE sql IS NOT NULL ORDER BY type, name')
      : await Promise.all(
          (
            (await dataSource.query(
              'SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME',
            )) as { name: string }[]
          ).map(async ({ name }) => ({
            name,
            ddl: String(
              ((await dataSource.query(`SHOW CREATE TABLE \`${name}\``)) as Record<string, string>[])[0]![
                'Create Table'
              ],
            ).replace(/ AUTO_INCREMENT=\d+/, ''),
          })),
        );
  const migrations: { name: string }[] = await dataSource.query('SELECT name FROM migrations ORDER BY id');
  return { tables, migrations: migrations.map(({ name }) => name) };
}

/** A database of `engine` made the slow way: every migration run on an empty one. */
function migratedWithoutTemplate(engine: DatabaseEngine) {
  // The same migrations as an object of classes, which the template cannot key: migrated each time.
  const unkeyed = Object.fromEntries(verdictMigrations.map((migration) => [migration.name, migration]));
  return openDataSource(engine, { entities: verdictEntities, migrations: unkeyed });
}

describe.each(databaseEngines().filter((engine) => engine.name !== 'postgres'))(
  'openDataSource from a migrated template [$name]',
  (engine) => {
    it('holds the schema and the migration rows a run of every migration makes; two copies share nothing', async () => {
      const first = await openDataSource(engine, source);
      const second = await openDataSource(engine, source);
      const migrated = await migratedWithoutTemplate(engine);
      try {
        const copied = await schemaOf(first, engine);
        expect(copied.migrations).toHaveLength(verdictMigrations.length);
        expect(copied).toEqual(await schemaOf(migrated, engine));
        await first.query('INSERT INTO migrations (timestamp, name) VALUES (1, ?)', ['only in the first copy']);
        expect((await schemaOf(second, engine)).migrations).toEqual(copied.migrations);
      } finally {
        await Promise.all([first, second, migrated].map((dataSource) => dropDataSource(dataSource)));
      }
    });
  },
);
