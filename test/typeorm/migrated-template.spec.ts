import { describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { type DatabaseEngine, databaseEngines, dropDataSource, openDataSource } from '@verdict/testing-kit';

/**
 * `openDataSource` copies a template this process migrated once (SQLite: the file; MariaDB: table by table;
 * PostgreSQL: the statements the first run sent, replayed) instead of running every migration for each test: the copy
 * must be the schema the migrations make — every table as the engine describes it, and the migrations table's rows
 * (and, on PostgreSQL, its id sequence past them), so a test that runs a migration down and up finds it run.
 */
const source = { entities: verdictEntities, migrations: verdictMigrations };

/** Every table as the engine describes it (its DDL), and the migrations that ran, in order. */
async function schemaOf(dataSource: DataSource, engine: DatabaseEngine) {
  const tables = await describeTables(dataSource, engine);
  const migrations: { name: string }[] = await dataSource.query('SELECT name FROM migrations ORDER BY id');
  return { tables, migrations: migrations.map(({ name }) => name) };
}

async function describeTables(
  dataSource: DataSource,
  engine: DatabaseEngine,
): Promise<{ name: string; ddl: string }[]> {
  switch (engine.name) {
    case 'sqlite':
      return dataSource.query('SELECT name, sql AS ddl FROM sqlite_master WHERE sql IS NOT NULL ORDER BY type, name');
    case 'mariadb':
      return Promise.all(
        (
          (await dataSource.query(
            'SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME',
          )) as { name: string }[]
        ).map(async ({ name }) => ({
          name,
          ddl: String(
            ((await dataSource.query(`SHOW CREATE TABLE \`${name}\``)) as Record<string, string>[])[0]!['Create Table'],
          ).replace(/ AUTO_INCREMENT=\d+/, ''),
        })),
      );
    case 'postgres': {
      // Every object of the schema as the catalog prints it, the schema's own name written as `<schema>`.
      const rows: { name: string; ddl: string }[] = await dataSource.query(`
        SELECT 'column ' || table_name || '.' || column_name AS name,
               concat_ws(' ', ordinal_position, data_type, character_maximum_length, numeric_precision, datetime_precision,
                         is_nullable, column_default) AS ddl
          FROM information_schema.columns WHERE table_schema = current_schema()
        UNION ALL
        SELECT 'constraint ' || c.conrelid::regclass || '.' || c.conname, pg_get_constraintdef(c.oid)
          FROM pg_constraint c WHERE c.connamespace = current_schema()::regnamespace
        UNION ALL
        SELECT 'index ' || indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema()
        UNION ALL
        SELECT 'trigger ' || t.tgname, pg_get_triggerdef(t.oid)
          FROM pg_trigger t JOIN pg_class r ON r.oid = t.tgrelid
         WHERE r.relnamespace = current_schema()::regnamespace AND NOT t.tgisinternal
        UNION ALL
        SELECT 'function ' || p.proname, pg_get_functiondef(p.oid)
          FROM pg_proc p WHERE p.pronamespace = current_schema()::regnamespace
        UNION ALL
        SELECT 'sequence ' || sequence_name, concat_ws(' ', data_type, start_value, increment)
          FROM information_schema.sequences WHERE sequence_schema = current_schema()
        ORDER BY 1`);
      const [{ schema }] = (await dataSource.query('SELECT current_schema() AS schema')) as [{ schema: string }];
      return rows.map(({ name, ddl }) => ({ name, ddl: String(ddl).split(schema).join('<schema>') }));
    }
  }
}

/** A database of `engine` made the slow way: every migration run on an empty one. */
function migratedWithoutTemplate(engine: DatabaseEngine) {
  // The same migrations as an object of classes, which the template cannot key: migrated each time.
  const unkeyed = Object.fromEntries(verdictMigrations.map((migration) => [migration.name, migration]));
  return openDataSource(engine, { entities: verdictEntities, migrations: unkeyed });
}

describe.each(databaseEngines())('openDataSource from a migrated template [$name]', (engine) => {
  it('holds the schema and the migration rows a run of every migration makes; two copies share nothing', async () => {
    // The first open makes the template; the next two are copies of it.
    const template = await openDataSource(engine, source);
    const first = await openDataSource(engine, source);
    const second = await openDataSource(engine, source);
    const migrated = await migratedWithoutTemplate(engine);
    try {
      const copied = await schemaOf(first, engine);
      expect(copied.migrations).toHaveLength(verdictMigrations.length);
      expect(copied).toEqual(await schemaOf(migrated, engine));
      const placeholder = engine.name === 'postgres' ? '$1' : '?';
      await first.query(`INSERT INTO migrations (timestamp, name) VALUES (1, ${placeholder})`, ['only in the first']);
      expect((await schemaOf(first, engine)).migrations).toEqual([...copied.migrations, 'only in the first']);
      expect((await schemaOf(second, engine)).migrations).toEqual(copied.migrations);
    } finally {
      await Promise.all([template, first, second, migrated].map((dataSource) => dropDataSource(dataSource)));
    }
  });
});
