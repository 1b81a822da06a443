import { afterAll, describe, expect, it } from '@jest/globals';
import { performance } from 'node:perf_hooks';
import { verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, dropDataSource, openDataSource, startGateWorkers, WorkerKeeper } from '@verdict/testing-kit';
import { fingerprint } from '../../packages/verdict/src/fingerprints/fingerprint.js';

const PROCESSES = 8;
const ROUNDS = 50;
const ATTEMPTS_PER_PROCESS = 2;
const LIMIT = 3;
const WINDOW_SECONDS = 60;

/**
 * A fixed-window limit across real OS processes, each with its own connection: every round, all
 * processes spend two units of the same fresh bucket at once (16 attempts); exactly `LIMIT` may be
 * admitted, counted 1, 2 and 3, and every refusal reports the window full.
 */
/** The worker processes, started once and given each engine's database in turn. */
const keeper = new WorkerKeeper();
afterAll(() => keeper.close());

for (const engine of databaseEngines()) {
  describe(`Rate limits across ${PROCESSES} OS processes [${engine.name}]`, () => {
    it(`admits exactly ${LIMIT} of ${PROCESSES * ATTEMPTS_PER_PROCESS} simultaneous attempts in each of ${ROUNDS} windows`, async () => {
      const dataSource = await openDataSource(engine, { entities: verdictEntities, migrations: verdictMigrations });
      const workers = await startGateWorkers({ count: PROCESSES, dataSource, keeper }).catch(async (error: unknown) => {
        await dropDataSource(dataSource);
        throw error;
      });
      try {
        const admittedCounts: string[] = [];
        const refusals: string[] = [];
        const windowStart = new Date(Math.floor(Date.now() / (WINDOW_SECONDS * 1000)) * WINDOW_SECONDS * 1000);
        const started = performance.now();

        for (let round = 0; round < ROUNDS; round++) {
          const bucketFingerprint = fingerprint({
            capability: 'shipments.refresh',
            policy: 'per-customer',
            binding: { round, engine: engine.name },
          });
          const replies = await workers.consumeAll({
            bucketFingerprint,
            windowStart,
            windowSeconds: WINDOW_SECONDS,
            limit: LIMIT,
            times: ATTEMPTS_PER_PROCESS,
          });

          const consumptions = replies.flatMap((reply) => reply.consumptions);
          admittedCounts.push(
            consumptions
              .filter((consumption) => consumption.allowed)
              .map((consumption) => consumption.count)
              .sort((a, b) => a - b)
              .join(','),
          );
          for (const refused of consumptions.filter((consumption) => !consumption.allowed)) {
            if (refused.count !== LIMIT || refused.remaining !== 0)
              refusals.push(`round ${round}: ${JSON.stringify(refused)}`);
          }
        }

        const seconds = (performance.now() - started) / 1000;
        console.info(
          `[${engine.name}] rate limits: ${PROCESSES} processes × ${ATTEMPTS_PER_PROCESS} attempts × ${ROUNDS} windows in ${seconds.toFixed(1)} s`,
        );
        const offWindows = admittedCounts.flatMap((counts, round) =>
          counts === '1,2,3' ? [] : [`round ${round}: admitted counts [${counts}]`],
        );
        expect({ windows: admittedCounts.length, notExactlyTheLimit: offWindows }).toEqual({
          windows: ROUNDS,
          notExactlyTheLimit: [],
        });
        expect(refusals).toEqual([]);
      } finally {
        await workers.close();
        await dropDataSource(dataSource);
      }
    });
  });
}
