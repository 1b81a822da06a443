import { describe, expect, it } from '@jest/globals';
import { InMemoryProvenanceContentStore } from '@verdict/nestjs';
import { describeProvenanceContentStoreContract } from '@verdict/nestjs/testing';
import { TypeOrmProvenanceContentStore, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { CreateProvenanceContents1797000400000 } from '../../packages/verdict/src/typeorm/migrations/1797000400000-create-provenance-contents.js';
import { databaseEngines, dropDataSource, openDataSource, withDataSource } from '@verdict/testing-kit';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };

describeProvenanceContentStoreContract('memory', async () => {
  const store = new InMemoryProvenanceContentStore();
  return { store, other: store, close: async () => {} };
});

for (const engine of databaseEngines()) {
  describeProvenanceContentStoreContract(engine.name, async () => {
    const dataSource = await openDataSource(engine, SCHEMA);
    return {
      store: new TypeOrmProvenanceContentStore(dataSource),
      other: new TypeOrmProvenanceContentStore(dataSource),
      close: () => dropDataSource(dataSource),
    };
  });

  describe(`verdict_provenance_contents [${engine.name}]`, () => {
    it('migrates up and down', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const runner = dataSource.createQueryRunner();
        expect((await runner.getTable('verdict_provenance_contents'))?.columns.map((c) => c.name).sort()).toEqual([
          'fingerprint',
          'kept_at',
          'text',
        ]);
        await new CreateProvenanceContents1797000400000().down(runner);
        expect(await runner.hasTable('verdict_provenance_contents')).toBe(false);
        await runner.release();
      });
    });
  });
}
