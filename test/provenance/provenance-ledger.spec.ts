import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import {
  InMemoryProvenanceLedger,
  type ProvenanceRecord,
  ProvenanceRecordKind,
  ProvenanceSourceKind,
  Trust,
  fingerprintString,
} from '@verdict/nestjs';
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
    it("attack: with invalidWhereValuesBehavior 'ignore', a null fingerprint or correlation finds no record (control: the record's own do)", async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        // The option TypeORM's own error message suggests: a null or undefined where-value is dropped, not refused.
        Object.assign(dataSource.options, { invalidWhereValuesBehavior: { null: 'ignore', undefined: 'ignore' } });
        const ledger = new TypeOrmProvenanceLedger(dataSource);
        const record: ProvenanceRecord = {
          id: randomUUID(),
          kind: ProvenanceRecordKind.Label,
          contentFingerprint: fingerprintString('a fetched page'),
          sourceKind: ProvenanceSourceKind.Tool,
          sourceName: 'products.view',
          trust: Trust.Untrusted,
          parentFingerprint: null,
          correlationId: randomUUID(),
          capability: null,
          argumentPathFingerprint: null,
          recordedAt: new Date(Date.UTC(2026, 0, 1)),
        };
        await ledger.append([record]);

        for (const missing of [null, undefined] as never[]) {
          expect(await ledger.forContent(missing)).toEqual([]);
          expect(await ledger.forCorrelation(missing)).toEqual([]);
        }
        expect(await ledger.forContent(record.contentFingerprint)).toEqual([record]);
        expect(await ledger.forCorrelation(record.correlationId!)).toEqual([record]);
      });
    });

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
