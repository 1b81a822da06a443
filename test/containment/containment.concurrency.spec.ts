import { afterAll, describe, expect, it } from '@jest/globals';
import { verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import {
  type ContainmentWorkers,
  type PingReply,
  databaseEngines,
  dropDataSource,
  openDataSource,
  startContainmentWorkers,
  WorkerKeeper,
} from '@verdict/testing-kit';

const PROCESSES = 6;
/** The containment cache TTL of every worker: the documented bound within which a switch takes effect. */
const CACHE_TTL_MS = 300;
/** How long polling may go on before the test gives up: only reached when a worker never sees the switch. */
const GIVE_UP_MS = 30_000;

type Reply = PingReply & { readonly worker: number };

/**
 * Pings every worker, round after round, until each has answered as `settled` says once (or the test gives
 * up); returns every reply and the workers that never settled. Polling, never sleeping.
 */
async function pollUntil(
  workers: ContainmentWorkers,
  actor: string,
  settled: (reply: PingReply) => boolean,
): Promise<{ replies: Reply[]; unsettled: number[] }> {
  const replies: Reply[] = [];
  const unsettled = new Set(Array.from({ length: workers.size }, (_, worker) => worker));
  const giveUpAt = Date.now() + GIVE_UP_MS;
  while (unsettled.size > 0 && Date.now() < giveUpAt) {
    const round = await Promise.all(
      [...unsettled].map(async (worker) => ({ worker, ...(await workers.ping(worker, { actor, tenant: 'acme' })) })),
    );
    for (const reply of round) {
      replies.push(reply);
      if (settled(reply)) unsettled.delete(reply.worker);
    }
  }
  return { replies, unsettled: [...unsettled] };
}

const refused = (reply: PingReply) => !reply.executed && reply.stage === 'containment';
const everyWorker = (workers: ContainmentWorkers, actor: string) =>
  Promise.all(Array.from({ length: workers.size }, (_, worker) => workers.ping(worker, { actor, tenant: 'acme' })));

/**
 * Kill switches across real OS processes, each with its own connection and its own containment cache:
 * a switch engaged (or released) on one process is honoured on every other one, and every call that
 * starts at least `cacheTtlMs` after the engagement committed is refused (the documented bound). The
 * engaging process refuses at once.
 */
/** The worker processes, started once and given each engine's database in turn. */
const keeper = new WorkerKeeper();
afterAll(() => keeper.close());

for (const engine of databaseEngines()) {
  describe(`Containment across ${PROCESSES} OS processes [${engine.name}]`, () => {
    it(`refuses on every process within the ${CACHE_TTL_MS} ms cache bound, and executes again after release`, async () => {
      const dataSource = await openDataSource(engine, { entities: verdictEntities, migrations: verdictMigrations });
      const workers = await startContainmentWorkers({
        count: PROCESSES,
        dataSource,
        keeper,
        cacheTtlMs: CACHE_TTL_MS,
      }).catch(async (error: unknown) => {
        await dropDataSource(dataSource);
        throw error;
      });
      try {
        expect((await everyWorker(workers, 'alice')).map((reply) => reply.executed)).toEqual(
          Array(PROCESSES).fill(true),
        );

        const engaged = await workers.operate(0, { kind: 'engage', scope: 'capability', subject: 'notes.ping' });
        expect(engaged.changed).toBe(true);
        expect(refused(await workers.ping(0, { actor: 'alice', tenant: 'acme' }))).toBe(true);
        const contained = await pollUntil(workers, 'alice', refused);
        expect(contained.unsettled).toEqual([]);
        const afterBound = contained.replies.filter((r) => r.startedAt >= engaged.committedAt + CACHE_TTL_MS);
        expect(afterBound.filter((r) => !refused(r))).toEqual([]);
        // Once refused, a process keeps refusing.
        expect((await everyWorker(workers, 'alice')).every(refused)).toBe(true);

        const released = await workers.operate(PROCESSES - 1, {
          kind: 'release',
          scope: 'capability',
          subject: 'notes.ping',
        });
        expect(released.changed).toBe(true);
        const restored = await pollUntil(workers, 'alice', (reply) => reply.executed);
        expect(restored.unsettled).toEqual([]);
        const afterRelease = restored.replies.filter((r) => r.startedAt >= released.committedAt + CACHE_TTL_MS);
        expect(afterRelease.filter((r) => !r.executed)).toEqual([]);

        // An actor's switch refuses that actor on every process; everyone else still executes there.
        const mallory = await workers.operate(1, { kind: 'engage', scope: 'actor', subject: 'mallory' });
        const malloryContained = await pollUntil(workers, 'mallory', refused);
        expect(malloryContained.unsettled).toEqual([]);
        expect(
          malloryContained.replies.filter((r) => r.startedAt >= mallory.committedAt + CACHE_TTL_MS && !refused(r)),
        ).toEqual([]);
        expect((await everyWorker(workers, 'alice')).map((reply) => reply.executed)).toEqual(
          Array(PROCESSES).fill(true),
        );
      } finally {
        await workers.close();
        await dropDataSource(dataSource);
      }
    });
  });
}
