import { InMemoryReviewItemStore } from '@verdict/nestjs';
import { describeReviewItemStoreContract } from '@verdict/nestjs/testing';
import { TypeOrmReviewItemStore, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, dropDataSource, openDataSource } from '@verdict/testing-kit';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };

describeReviewItemStoreContract('memory', async () => ({
  store: new InMemoryReviewItemStore(),
  close: async () => {},
}));

for (const engine of databaseEngines()) {
  describeReviewItemStoreContract(engine.name, async () => {
    const dataSource = await openDataSource(engine, SCHEMA);
    return { store: new TypeOrmReviewItemStore(dataSource), close: () => dropDataSource(dataSource) };
  });
}
