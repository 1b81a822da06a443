import { afterAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { type CheckpointKey, EvidenceKind } from '@verdict/nestjs';
import { TypeOrmEvidenceRecorder, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import {
  databaseEngines,
  dropDataSource,
  openDataSource,
  startEvidenceWorkers,
  WorkerKeeper,
} from '@verdict/testing-kit';

const PROCESSES = 8;
const RECORDS_PER_PROCESS = 40;
const KEY: CheckpointKey = { algorithm: 'hmac-sha256', keyId: 'concurrency', secret: 'the application key' };

/**
 * One stream appended to by real OS processes at once, each sealing after every write as an application
 * node does: the stream must end as one chain (no fork: one record per sequence), without a gap
 * (sequences 1..N), holding every record exactly once, and verify with every checkpoint's signature.
 */
/** The worker processes, started once and given each engine's database in turn. */
const keeper = new WorkerKeeper();
afterAll(() => keeper.close());

for (const engine of databaseEngines()) {
  describe(`Evidence chain across ${PROCESSES} OS processes [${engine.name}]`, () => {
    it(`keeps one gapless chain of ${PROCESSES * RECORDS_PER_PROCESS} records appended concurrently, and it verifies`, async () => {
      const dataSource = await openDataSource(engine, { entities: verdictEntities, migrations: verdictMigrations });
      const workers = await startEvidenceWorkers({ count: PROCESSES, dataSource, keeper, checkpointKey: KEY }).catch(
        async (error: unknown) => {
          await dropDataSource(dataSource);
          throw error;
        },
      );
      try {
        const stream = `tenant:${randomUUID()}`;
        const appended = (await workers.appendAll(stream, RECORDS_PER_PROCESS)).flat();
        const total = PROCESSES * RECORDS_PER_PROCESS;

        const p = engine.name === 'postgres' ? '$1' : '?';
        const links: Array<{ record_id: string; sequence: number | string }> = await dataSource.query(
          `SELECT record_id, sequence FROM verdict_evidence_links WHERE stream = ${p} ORDER BY sequence`,
          [stream],
        );
        expect(links).toHaveLength(total);
        expect(new Set(links.map((link) => link.record_id))).toEqual(new Set(appended));
        expect(links.map((link) => Number(link.sequence))).toEqual(Array.from({ length: total }, (_, i) => i + 1));

        const verdict = (await new TypeOrmEvidenceRecorder(dataSource, { checkpointKey: KEY }).verify()).find(
          (v) => v.kind === EvidenceKind.Decision && v.stream === stream,
        );
        expect(verdict).toMatchObject({
          intact: true,
          records: total,
          verifiedThrough: total,
          unsealed: 0,
          signaturesChecked: true,
        });
        expect(verdict!.checkpoints).toBeGreaterThan(0);
      } finally {
        await workers.close();
        await dropDataSource(dataSource);
      }
    });
  });
}
