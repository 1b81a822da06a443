import { afterAll, describe, expect, it } from '@jest/globals';
import { performance } from 'node:perf_hooks';
import { fingerprint } from '@verdict/nestjs';
import { verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, dropDataSource, openDataSource, startGateWorkers, WorkerKeeper } from '@verdict/testing-kit';

const PROCESSES = 8;
const ROUNDS = 40;
const ATTEMPTS_PER_PROCESS = 3;
const LIMIT = 1_000;
const AMOUNT = 100;
const WINDOW_SECONDS = 3_600;

/**
 * A spend budget across real OS processes, each with its own connection: every round, all processes reserve three
 * amounts of the same fresh budget window at once (24 × 100 against a limit of 1,000).
 */
/** The worker processes, started once and given each engine's database in turn. */
const keeper = new WorkerKeeper();
afterAll(() => keeper.close());

for (const engine of databaseEngines()) {
  describe(`Spend budgets across ${PROCESSES} OS processes [${engine.name}]`, () => {
    const windowStart = new Date(Math.floor(Date.now() / (WINDOW_SECONDS * 1000)) * WINDOW_SECONDS * 1000);
    const bucket = (round: number, settle: string) =>
      fingerprint({ budget: 'refunds', per: 'tenant', binding: { round, settle, engine: engine.name } });

    it(`attack: committed spends never pass the limit — exactly ${LIMIT / AMOUNT} of ${PROCESSES * ATTEMPTS_PER_PROCESS} reservations in each of ${ROUNDS} windows; control: released ones give the budget back`, async () => {
      const dataSource = await openDataSource(engine, { entities: verdictEntities, migrations: verdictMigrations });
      const workers = await startGateWorkers({ count: PROCESSES, dataSource, keeper }).catch(async (error: unknown) => {
        await dropDataSource(dataSource);
        throw error;
      });
      try {
        const overSpends: string[] = [];
        const underSpends: string[] = [];
        const refusedReleases: string[] = [];
        const started = performance.now();
        for (let round = 0; round < ROUNDS; round++) {
          const request = { windowStart, windowSeconds: WINDOW_SECONDS, limit: LIMIT, amount: AMOUNT };
          const spent = await workers.reserveBudgetAll({
            ...request,
            bucketFingerprint: bucket(round, 'commit'),
            times: ATTEMPTS_PER_PROCESS,
            settle: 'commit',
          });
          const admitted = spent.flatMap((reply) => reply.reservations).filter((answer) => answer.reserved).length;
          if (admitted * AMOUNT > LIMIT) overSpends.push(`round ${round}: ${admitted * AMOUNT} spent`);
          if (admitted * AMOUNT < LIMIT) underSpends.push(`round ${round}: ${admitted * AMOUNT} spent`);
          // Each process holds at most one reservation at a time (8 × 100 < 1,000): released, every one fits.
          const released = await workers.reserveBudgetAll({
            ...request,
            bucketFingerprint: bucket(round, 'release'),
            times: ATTEMPTS_PER_PROCESS,
            settle: 'release',
          });
          const refused = released.flatMap((reply) => reply.reservations).filter((answer) => !answer.reserved);
          if (refused.length > 0) refusedReleases.push(`round ${round}: ${refused.length} refused`);
        }
        console.info(
          `[${engine.name}] spend budgets: ${PROCESSES} processes × ${ATTEMPTS_PER_PROCESS} reservations × ${ROUNDS} windows × 2 in ${((performance.now() - started) / 1000).toFixed(1)} s`,
        );
        expect({ overSpends, underSpends, refusedReleases }).toEqual({
          overSpends: [],
          underSpends: [],
          refusedReleases: [],
        });
      } finally {
        await workers.close();
        await dropDataSource(dataSource);
      }
    });
  });
}
