import { describe, expect, it } from '@jest/globals';
import { verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, withDataSource, type DatabaseEngine } from '@verdict/testing-kit';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };

for (const engine of databaseEngines().map(asMariaDb)) {
  describe(`verdictEntities and verdictMigrations [${engine.name}]`, () => {
    it('describe the same schema: after the migrations, TypeORM would change nothing', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const sql = await dataSource.driver.createSchemaBuilder().log();

        expect(sql.upQueries.map((query) => query.query)).toEqual([]);
      });
    });

    it('would change something once a migrated column differs from its entity (the check can fail)', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const queryRunner = dataSource.createQueryRunner();
        try {
          await queryRunner.dropColumn('verdict_trajectory_states', 'version');
        } finally {
          await queryRunner.release();
        }

        const sql = await dataSource.driver.createSchemaBuilder().log();

        expect(sql.upQueries.map((query) => query.query).join('\n')).toMatch(/verdict_trajectory_states.*version/s);
      });
    });
  });
}

/** MariaDB as TypeORM's `mariadb` type: as `mysql`, TypeORM misreads MariaDB's `DEFAULT NULL` as a literal. */
function asMariaDb(engine: DatabaseEngine): DatabaseEngine {
  return engine.name === 'mariadb' && engine.url
    ? { ...engine, url: engine.url.replace(/^mysql:/, 'mariadb:') }
    : engine;
}
