import { afterAll, describe, expect, it } from '@jest/globals';
import { performance } from 'node:perf_hooks';
import { fingerprint } from '@verdict/nestjs';
import { verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import {
  databaseEngines,
  dropDataSource,
  externalCopiesModel,
  openDataSource,
  startGateWorkers,
  WorkerKeeper,
} from '@verdict/testing-kit';

const PROCESSES = 8;
const ROUNDS = 50;
const ATTEMPTS_PER_PROCESS = 2;
const ALLOWED = 3;
/** A fourth external copy is the forbidden state. */
const COPIES = externalCopiesModel(ALLOWED);

/**
 * The run-time trajectory gate across real OS processes, each with its own connection: every round, all
 * processes fold two uploads into the same fresh trajectory at once (16 calls). Exactly `ALLOWED` may be
 * admitted, at positions 1, 2 and 3; every other call is refused with the predicate: the check and the
 * write of the folded state are one atomic step, so no two calls pass on the same state.
 */
/** The worker processes, started once and given each engine's database in turn. */
const keeper = new WorkerKeeper();
afterAll(() => keeper.close());

for (const engine of databaseEngines()) {
  describe(`Trajectory states across ${PROCESSES} OS processes [${engine.name}]`, () => {
    it(`admits exactly ${ALLOWED} of ${PROCESSES * ATTEMPTS_PER_PROCESS} simultaneous calls in each of ${ROUNDS} trajectories`, async () => {
      const dataSource = await openDataSource(engine, { entities: verdictEntities, migrations: verdictMigrations });
      const workers = await startGateWorkers({ count: PROCESSES, dataSource, keeper }).catch(async (error: unknown) => {
        await dropDataSource(dataSource);
        throw error;
      });
      try {
        const off: string[] = [];
        const started = performance.now();
        for (let round = 0; round < ROUNDS; round++) {
          const replies = await workers.advanceTrajectoryAll({
            trajectoryFingerprint: fingerprint({ round, engine: engine.name }),
            stateModel: COPIES,
            effect: { effect: 'upload', destination: 'external:drop.example' },
            times: ATTEMPTS_PER_PROCESS,
            now: new Date(),
          });
          const outcomes = replies.flatMap((reply) => reply.outcomes);
          const positions = outcomes
            .flatMap((outcome) => (outcome.admitted ? [outcome.position] : []))
            .sort((a, b) => a - b);
          const refusals = outcomes.filter((outcome) => !outcome.admitted && outcome.violation === 'too_many_copies');
          if (positions.join(',') !== '1,2,3' || refusals.length !== outcomes.length - ALLOWED)
            off.push(`round ${round}: admitted at [${positions}], ${refusals.length} refused of ${outcomes.length}`);
        }
        console.info(
          `[${engine.name}] trajectories: ${PROCESSES} processes × ${ATTEMPTS_PER_PROCESS} calls × ${ROUNDS} rounds in ${((performance.now() - started) / 1000).toFixed(1)} s`,
        );
        expect(off).toEqual([]);
      } finally {
        await workers.close();
        await dropDataSource(dataSource);
      }
    });
  });
}
