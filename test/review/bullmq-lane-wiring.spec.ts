import { describe, expect, it } from '@jest/globals';
import { BullModule, WorkerHost, getQueueToken } from '@nestjs/bullmq';
import { DiscoveryService } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import type { Queue } from 'bullmq';
import { once } from 'node:events';
import { type AddressInfo, createServer } from 'node:net';
import {
  ActionContextStore,
  type AuthorizedAction,
  DeferredEnqueueTimeoutError,
  type DeferredJobOutcome,
  InMemoryExecutionClaimStore,
  InMemoryReviewItemStore,
  ReviewService,
  VerdictConfigurationError,
  VerdictModule,
  VerdictService,
} from '@verdict/nestjs';
import { BullMqDeferredQueue, VERDICT_DEFERRED_QUEUE, VerdictBullMqModule } from '@verdict/nestjs/bullmq';
import {
  type RefundArguments,
  type RefundOrder,
  refundFixture,
  testRedisUrl,
  uniqueRedisPrefix,
} from '@verdict/testing-kit';

const redis = testRedisUrl();

/**
 * A Redis nothing listens on: a port this test bound, then closed. ioredis, closing a socket that never connected,
 * waits `disconnectTimeout` (2 s by default) for a `close` that does not come: 0 lets the test file end when it does.
 */
async function unreachableRedis(): Promise<RedisConnection> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return { url: `redis://127.0.0.1:${port}`, disconnectTimeout: 0 };
}

type RedisConnection = { readonly url: string; readonly disconnectTimeout?: number };

/** The stores of one review lane, shared by the processes of a test (a web process and a worker). */
function laneStores() {
  const refunds: AuthorizedAction<RefundArguments, RefundOrder>[] = [];
  const fixture = refundFixture({ record: async (action) => void refunds.push(action) });
  return { fixture, refunds, items: new InMemoryReviewItemStore(), claims: new InMemoryExecutionClaimStore() };
}

/** One process of the lane on BullMQ: `worker` is `VerdictBullMqModule`'s, `work` the lane's `review.work`. */
async function bootProcess(
  stores: ReturnType<typeof laneStores>,
  { connection, prefix, worker, work }: { connection: RedisConnection; prefix: string; worker: boolean; work?: false },
) {
  const { fixture, items, claims } = stores;
  const moduleRef = await Test.createTestingModule({
    imports: [
      BullModule.forRoot({ connection: { ...connection }, prefix }),
      VerdictBullMqModule.register({ worker: worker ? {} : false, jobs: { attempts: 1 } }),
      VerdictModule.forRootAsync({
        inject: [BullMqDeferredQueue],
        useFactory: (queue: BullMqDeferredQueue) => ({
          abilityFactory: fixture.abilityFactory,
          capabilities: [fixture.refund],
          executionClaims: claims,
          actorKey: fixture.actorKey,
          review: { items, queue, rehydrate: fixture.rehydrate, work },
        }),
      }),
    ],
  }).compile();
  moduleRef.useLogger(false);
  return moduleRef;
}

type Booted = Awaited<ReturnType<typeof bootProcess>>;

/** A customer's refund, parked for review; answers its item id. */
async function propose(moduleRef: Booted, stores: ReturnType<typeof laneStores>): Promise<string> {
  await moduleRef
    .get(ActionContextStore)
    .run(stores.fixture.contextOf('customer:72', 'conversation-1'), () =>
      moduleRef
        .get(VerdictService)
        .execute({ capability: 'orders.refund', arguments: { orderId: 1002, amount: 120 }, toolCallId: 'call_1' }),
    );
  return (await moduleRef.get(ReviewService).pending({ tenant: 'acme' })).at(-1)!.itemId;
}

const staff = (stores: ReturnType<typeof laneStores>) => ({
  id: 'staff:7',
  context: stores.fixture.contextOf('staff:7'),
});

/** Whether each of the next `count` jobs the process's BullMQ worker finishes executed its item (sorted). */
function nextOutcomes(moduleRef: Booted, count: number): Promise<boolean[]> {
  const { worker } = moduleRef
    .get(DiscoveryService)
    .getProviders()
    .map((wrapper) => wrapper.instance as unknown)
    .find((instance): instance is WorkerHost => instance instanceof WorkerHost)!;
  return new Promise((resolve, reject) => {
    const outcomes: boolean[] = [];
    worker.on('failed', (_, error) => reject(error));
    worker.on('completed', (_, outcome: DeferredJobOutcome) => {
      outcomes.push(outcome.executed);
      if (outcomes.length === count) resolve(outcomes.sort());
    });
  });
}

(redis === undefined ? describe.skip : describe)('the review lane on BullMQ', () => {
  const live = redis!;

  describe('a process without a BullMQ worker (VerdictBullMqModule.register({ worker: false }))', () => {
    it('is refused at boot when its lane works the queue (review.work left at its default)', async () => {
      const stores = laneStores();
      const moduleRef = await bootProcess(stores, {
        connection: { url: live },
        prefix: uniqueRedisPrefix(),
        worker: false,
      });
      const booting = moduleRef.init();
      await expect(booting).rejects.toThrow(VerdictConfigurationError);
      await expect(booting).rejects.toThrow('register VerdictBullMqModule with a worker, or set review.work: false');
      await moduleRef.close();
    });

    it('control: a web-only process (review.work: false) boots and queues an approved item for a worker', async () => {
      const stores = laneStores();
      const moduleRef = await bootProcess(stores, {
        connection: { url: live },
        prefix: uniqueRedisPrefix(),
        worker: false,
        work: false,
      });
      await moduleRef.init();
      const itemId = await propose(moduleRef, stores);
      expect(await moduleRef.get(ReviewService).approve(itemId, staff(stores))).toMatchObject({ outcome: 'approved' });
      const bull = moduleRef.get<Queue>(getQueueToken(VERDICT_DEFERRED_QUEUE));
      expect(await bull.getJobState(itemId)).toBe('waiting');
      expect({ status: (await stores.items.find(itemId))?.status, refunds: stores.refunds.length }).toEqual({
        status: 'approved',
        refunds: 0,
      });
      await bull.obliterate({ force: true });
      await moduleRef.close();
    });
  });

  describe('an approval whose enqueue Redis never takes', () => {
    it('fails the reviewer’s request with DeferredEnqueueTimeoutError; the item stays approved, a re-queue runs it once', async () => {
      const stores = laneStores();
      const prefix = uniqueRedisPrefix();
      const web = await bootProcess(stores, {
        connection: await unreachableRedis(),
        prefix,
        worker: false,
        work: false,
      });
      // The queue's connection errors, as long as Redis stays unreachable: expected here.
      web.get<Queue>(getQueueToken(VERDICT_DEFERRED_QUEUE)).on('error', () => undefined);
      await web.init();
      const itemId = await propose(web, stores);
      const approving = web.get(ReviewService).approve(itemId, staff(stores));
      await expect(approving).rejects.toThrow(DeferredEnqueueTimeoutError);
      await expect(approving).rejects.toThrow(`"${VERDICT_DEFERRED_QUEUE}"`);
      // The error names the item, so that a caller can re-queue it rather than propose again (a second item).
      await expect(approving).rejects.toMatchObject({ context: { itemId } });
      expect({ status: (await stores.items.find(itemId))?.status, refunds: stores.refunds.length }).toEqual({
        status: 'approved',
        refunds: 0,
      });
      await web.close();

      // Redis is back: an operator re-queues the item (docs/review-lane.md §3), and the web process's add lands late
      // (its job id is the item's). Both jobs reach a worker; the item's claim lets one of them run.
      const worker = await bootProcess(stores, { connection: { url: live }, prefix, worker: true });
      await worker.init();
      const bull = worker.get<Queue>(getQueueToken(VERDICT_DEFERRED_QUEUE));
      const outcomes = nextOutcomes(worker, 2);
      expect(await worker.get(ReviewService).requeue(itemId, { by: 'operator:7' })).toEqual({
        outcome: 'requeued',
        itemId,
      });
      await worker.get(BullMqDeferredQueue).enqueue({ itemId });
      expect(await outcomes).toEqual([false, true]);
      expect({ status: (await stores.items.find(itemId))?.status, refunds: stores.refunds.length }).toEqual({
        status: 'executed',
        refunds: 1,
      });
      await bull.obliterate({ force: true });
      await worker.close();
    });

    it('control: with Redis up, the approval queues the item and it executes once', async () => {
      const stores = laneStores();
      const prefix = uniqueRedisPrefix();
      const moduleRef = await bootProcess(stores, { connection: { url: live }, prefix, worker: true });
      await moduleRef.init();
      const bull = moduleRef.get<Queue>(getQueueToken(VERDICT_DEFERRED_QUEUE));
      const outcomes = nextOutcomes(moduleRef, 1);
      const itemId = await propose(moduleRef, stores);
      expect(await moduleRef.get(ReviewService).approve(itemId, staff(stores))).toMatchObject({ outcome: 'approved' });
      expect(await outcomes).toEqual([true]);
      expect({ status: (await stores.items.find(itemId))?.status, refunds: stores.refunds.length }).toEqual({
        status: 'executed',
        refunds: 1,
      });
      await bull.obliterate({ force: true });
      await moduleRef.close();
    });
  });
});
