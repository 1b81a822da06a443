import { describe, expect, it } from '@jest/globals';
import { InMemoryProvenanceLedger } from '@verdict/nestjs';
import { describeProvenanceLedgerContract } from '@verdict/nestjs/testing';
import { verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, dropDataSource, openDataSource, withDataSource } from '@verdict/testing-kit';
import { TypeOrmProvenanceLedger } from '../../packages/verdict/src/typeorm/typeorm-provenance-ledger.js';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };

describeProvenanceLedgerContract('memory', async () => ({
  ledger: new InMemoryProvenanceLedger(),
  close: async () => {},
}));

for (const engine of databaseEngines()) {
  describeProvenanceLedgerContract(engine.name, async () => {
    const dataSource = await openDataSource(engine, SCHEMA);
    return { ledger: new TypeOrmProvenanceLedger(dataSource), close: () => dropDataSource(dataSource) };
  });

  describe(`verdict_provenance_records [${engine.name}]`, () => {
    it('has no column that could hold content', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const table = await dataSource.createQueryRunner().getTable('verdict_provenance_records');
        expect(table?.columns.map((column) => column.name).sort()).toEqual(
          [
            'argument_path_fingerprint',
            'capability',
            'content_fingerprint',
            'correlation_id',
            'id',
            'kind',
            'parent_fingerprint',
            'recorded_at',
            'source_kind',
            'source_name',
            'trust',
          ].sort(),
        );
      });
    });
  });
}
