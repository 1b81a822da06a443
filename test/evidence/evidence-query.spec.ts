import { InMemoryEvidenceQuery, InMemoryEvidenceRecorder } from '@verdict/nestjs';
import { describeEvidenceQueryContract } from '@verdict/nestjs/testing';
import {
  TypeOrmEvidenceQuery,
  TypeOrmEvidenceRecorder,
  verdictEntities,
  verdictMigrations,
} from '@verdict/nestjs/typeorm';
import { databaseEngines, dropDataSource, openDataSource } from '@verdict/testing-kit';

describeEvidenceQueryContract('memory', async () => {
  const recorder = new InMemoryEvidenceRecorder();
  return { recorder, query: new InMemoryEvidenceQuery(recorder), close: async () => {} };
});

for (const engine of databaseEngines()) {
  describeEvidenceQueryContract(engine.name, async () => {
    const dataSource = await openDataSource(engine, { entities: verdictEntities, migrations: verdictMigrations });
    return {
      recorder: new TypeOrmEvidenceRecorder(dataSource),
      query: new TypeOrmEvidenceQuery(dataSource),
      close: () => dropDataSource(dataSource),
    };
  });
}
