import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { CheckpointKey } from '@verdict/nestjs';
import { TypeOrmEvidenceRecorder, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, streamDecision, withDataSource } from '@verdict/testing-kit';

const KEY: CheckpointKey = {
  algorithm: 'hmac-sha256',
  keyId: 'many-streams',
  secret: 'a secret only the application has',
};
/** More streams than MariaDB's default `max_recursive_iterations` (1000) lets one recursive query list, and more than two walks of 500. */
const STREAMS = 1002;
/** A thousand streams sealed, pinned and verified: minutes on a loaded machine, not seconds. */
const MANY_STREAMS_TIMEOUT_MS = 300_000;
const mariadb = databaseEngines().find((engine) => engine.name === 'mariadb');

(mariadb === undefined ? describe.skip : describe)('seal pins every stream [mariadb, more than 1,000 streams]', () => {
  it(
    'signs a checkpoint of every unpinned head, the 1,001st stream and those after it too',
    async () => {
      await withDataSource(
        mariadb!,
        { entities: verdictEntities, migrations: verdictMigrations },
        async (dataSource) => {
          const run = randomUUID();
          const anHourAgo = new Date(Date.now() - 3_600_000);
          const streams = Array.from({ length: STREAMS }, (_, i) => `tenant:${run}:${String(i).padStart(4, '0')}`);
          // Linked by a process without a key: no checkpoint pins any head yet.
          const unkeyed = new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' });
          await unkeyed.recordDecisions(streams.map((stream) => streamDecision(stream, 'refund', anHourAgo)));
          expect(await unkeyed.seal()).toEqual({ sealed: STREAMS, checkpoints: 0 });

          const keyed = new TypeOrmEvidenceRecorder(dataSource, { checkpointKey: KEY, seal: 'manual' });
          expect((await keyed.seal()).checkpoints).toBeGreaterThanOrEqual(STREAMS);
          const ours = (await keyed.verify()).filter((verification) =>
            verification.stream.startsWith(`tenant:${run}:`),
          );
          expect(ours).toHaveLength(STREAMS);
          expect(
            ours.filter((verification) => !verification.intact).map((verification) => verification.stream),
          ).toEqual([]);
        },
      );
    },
    MANY_STREAMS_TIMEOUT_MS,
  );

  it('utility: a second seal finds every head pinned and signs nothing', async () => {
    await withDataSource(mariadb!, { entities: verdictEntities, migrations: verdictMigrations }, async (dataSource) => {
      const stream = `tenant:${randomUUID()}`;
      const keyed = new TypeOrmEvidenceRecorder(dataSource, { checkpointKey: KEY, seal: 'manual' });
      await keyed.recordDecision(streamDecision(stream, 'refund'));
      await keyed.seal();
      expect(await keyed.seal()).toEqual({ sealed: 0, checkpoints: 0 });
      expect((await keyed.verify()).find((verification) => verification.stream === stream)).toMatchObject({
        intact: true,
      });
    });
  });
});
