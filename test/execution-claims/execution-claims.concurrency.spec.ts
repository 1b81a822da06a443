import { afterAll, describe, expect, it } from '@jest/globals';
import { performance } from 'node:perf_hooks';
import { isDeepStrictEqual } from 'node:util';
import { TypeOrmExecutionClaimStore, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, dropDataSource, openDataSource, startGateWorkers, WorkerKeeper } from '@verdict/testing-kit';
import type { AdmitReply } from '@verdict/testing-kit';
import { fingerprint } from '../../packages/verdict/src/fingerprints/fingerprint.js';

const PROCESSES = 8;
const ROUNDS = 50;

/**
 * At-most-once admission across real OS processes, each with its own connection: every round, all
 * processes admit the same new operation at once (exactly one may win, attempt 1), then an operator
 * releases it and all of them retry at once (exactly one may win, attempt 2, the same claim id).
 */
/** The worker processes, started once and given each engine's database in turn. */
const keeper = new WorkerKeeper();
afterAll(() => keeper.close());

for (const engine of databaseEngines()) {
  describe(`Execution claims across ${PROCESSES} OS processes [${engine.name}]`, () => {
    it(`admits exactly one process per operation in each of ${ROUNDS} rounds, first claims and retries alike`, async () => {
      const dataSource = await openDataSource(engine, { entities: verdictEntities, migrations: verdictMigrations });
      const workers = await startGateWorkers({ count: PROCESSES, dataSource, keeper }).catch(async (error: unknown) => {
        await dropDataSource(dataSource);
        throw error;
      });
      try {
        const operator = new TypeOrmExecutionClaimStore(dataSource);
        const firstClaims: number[] = [];
        const retries: number[] = [];
        const violations: string[] = [];
        const started = performance.now();

        for (let round = 0; round < ROUNDS; round++) {
          const bindingFingerprint = fingerprint({
            capability: 'orders.refund',
            policy: 'once-per-order',
            binding: { round, engine: engine.name },
          });
          const operation = { capability: 'orders.refund', policy: 'once-per-order', bindingFingerprint };

          const first = await workers.admitAll({ ...operation, now: new Date() });
          firstClaims.push(first.filter((reply) => reply.admitted).length);
          const winner = first.find((reply) => reply.admitted);
          if (winner === undefined) continue;
          if (winner.claimId !== winner.candidateId)
            violations.push(`round ${round}: the first claim's id is not its admitter's candidate id`);
          violations.push(...disagreements(round, 'first claim', first, winner, 1));

          await operator.resolve({
            claimId: winner.claimId,
            to: 'released',
            by: 'operator:test',
            reason: `round ${round}`,
            force: true,
            now: new Date(),
          });
          const retry = await workers.admitAll({ ...operation, now: new Date() });
          retries.push(retry.filter((reply) => reply.admitted).length);
          const retried = retry.find((reply) => reply.admitted);
          if (retried !== undefined)
            violations.push(...disagreements(round, 'retry', retry, { ...retried, claimId: winner.claimId }, 2));
        }

        const seconds = (performance.now() - started) / 1000;
        console.info(
          `[${engine.name}] execution claims: ${PROCESSES} processes × ${ROUNDS} rounds × 2 admissions in ${seconds.toFixed(1)} s`,
        );
        expect({ rounds: firstClaims.length, notExactlyOne: offRounds(firstClaims) }).toEqual({
          rounds: ROUNDS,
          notExactlyOne: [],
        });
        expect({ rounds: retries.length, notExactlyOne: offRounds(retries) }).toEqual({
          rounds: ROUNDS,
          notExactlyOne: [],
        });
        expect(violations).toEqual([]);
        expect(await operator.unresolved()).toHaveLength(ROUNDS);
      } finally {
        await workers.close();
        await dropDataSource(dataSource);
      }
    });
  });
}

/** The rounds that did not admit exactly one process, as `round r: n admitted`. */
function offRounds(admittedPerRound: number[]): string[] {
  return admittedPerRound.flatMap((admitted, round) =>
    admitted === 1 ? [] : [`round ${round}: ${admitted} admitted`],
  );
}

/** Every process must agree on the winner: the same claim id and attempt, refused with status `claimed`. */
function disagreements(
  round: number,
  phase: string,
  replies: AdmitReply[],
  winner: AdmitReply,
  attempt: number,
): string[] {
  const expected = (reply: AdmitReply) =>
    reply.admitted
      ? { admitted: true, claimId: winner.claimId, attempt }
      : { admitted: false, claimId: winner.claimId, attempt, status: 'claimed' };
  return replies
    .filter((reply) => !isDeepStrictEqual(strip(reply), expected(reply)))
    .map(
      (reply) =>
        `round ${round} ${phase}: ${JSON.stringify(strip(reply))}, expected ${JSON.stringify(expected(reply))}`,
    );
}

function strip({ candidateId: _candidateId, ...admission }: AdmitReply) {
  return admission;
}
