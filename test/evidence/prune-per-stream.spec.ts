import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { type CheckpointKey, InMemoryEvidenceRecorder } from '@verdict/nestjs';
import { TypeOrmEvidenceRecorder, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, streamDecision, withDataSource } from '@verdict/testing-kit';

const KEY: CheckpointKey = { algorithm: 'hmac-sha256', keyId: 'prune-per-stream', secret: 'the application key' };
const day = (n: number) => new Date(Date.UTC(2026, 0, n));

/** What both recorders offer: writes, verify and prune. */
type Recorder = Pick<InMemoryEvidenceRecorder, 'recordDecision' | 'recordDecisions' | 'verify' | 'prune'>;
type WithRecorder = (work: (recorder: Recorder) => Promise<void>) => Promise<void>;

/** Every recorder with a prune: the in-memory one, and the TypeORM one on each engine of the matrix. */
const recorders: Array<[string, WithRecorder]> = [
  ['in-memory', (work) => work(new InMemoryEvidenceRecorder())],
  ...databaseEngines().map((engine): [string, WithRecorder] => [
    `TypeORM ${engine.name}`,
    (work) =>
      withDataSource(engine, { entities: verdictEntities, migrations: verdictMigrations }, (dataSource) =>
        work(new TypeOrmEvidenceRecorder(dataSource, { checkpointKey: KEY, seal: 'manual' })),
      ),
  ]),
];

describe.each(recorders)('prune, per stream [%s]', (_name, withRecorder) => {
  it("prunes each stream's records older than the cutoff, whatever another stream wrote before them", () =>
    withRecorder(async (recorder) => {
      const [a, b] = [`tenant:a-${randomUUID()}`, `tenant:b-${randomUUID()}`];
      // Stream a's newer record is written first (a run writes its records in batches; streams interleave).
      const newer = streamDecision(a, 'a on the 10th', day(10));
      const older = [streamDecision(b, 'b on the 1st', day(1)), streamDecision(b, 'b on the 2nd', day(2))];
      await recorder.recordDecision(newer);
      await recorder.recordDecisions(older);

      await expect(recorder.prune(day(5))).resolves.toEqual({ pruned: 2, anchored: 1 });

      const streams = (await recorder.verify()).filter((verdict) => [a, b].includes(verdict.stream));
      // Control: the newer record stays, and both streams verify.
      expect(streams.map((verdict) => [verdict.stream, verdict.intact, verdict.records])).toEqual(
        [
          [a, true, 1],
          [b, true, 0],
        ].sort(),
      );
    }));
});
