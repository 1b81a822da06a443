import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { ContextReleaser, DataClass, Destination, ReleasePolicy, Source, Trust } from '@verdict/nestjs';
import {
  ReleaseRecordEntity,
  TypeOrmEvidenceRecorder,
  verdictEntities,
  verdictMigrations,
} from '@verdict/nestjs/typeorm';
import { databaseEngines, remigrate, withDataSource } from '@verdict/testing-kit';
import { CreateReleaseRecords1796000000000 } from '../../packages/verdict/src/typeorm/migrations/1796000000000-create-release-records.js';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };
const route = ReleasePolicy.route(
  Source.application('customer-profile'),
  Destination.connection('ollama-local', 'local-machine'),
).allow({
  classes: [DataClass.Pii],
  trust: [Trust.Trusted],
});

for (const engine of databaseEngines()) {
  describe(`CreateReleaseRecords migration [${engine.name}]`, () => {
    it('drops the table on down, and up creates it again with its indexes', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const table = await remigrate(dataSource, new CreateReleaseRecords1796000000000(), 'verdict_release_records');
        expect(table.indices.map((index) => index.name).sort()).toEqual([
          'idx_verdict_release_records_correlation',
          'idx_verdict_release_records_destination_time',
        ]);
      });
    });
  });

  describe(`Context release with TypeOrmEvidenceRecorder [${engine.name}]`, () => {
    it('writes one row per release, in the same transaction-free insert, and fails closed when the table is gone', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const releaser = new ContextReleaser({ policies: [route], recorder: new TypeOrmEvidenceRecorder(dataSource) });
        const correlationId = randomUUID();
        const release = () =>
          releaser
            .release({ first_name: 'Ada' })
            .source(route.source)
            .trust(Trust.Trusted)
            .classify(DataClass.Pii)
            .only(['first_name'])
            .correlate(correlationId)
            .to(route.destination);
        expect((await release()).permitted).toBe(true);
        expect(await dataSource.getRepository(ReleaseRecordEntity).countBy({ correlationId })).toBe(1);

        await dataSource.query('DROP TABLE verdict_release_records');
        await expect(release()).rejects.toMatchObject({ code: 'VERDICT_RELEASE_EVIDENCE_WRITE_FAILED' });
      });
    });
  });
}
