import type { DeferredJob, DeferredJobOutcome } from '../queue/deferred-job.js';
import type { DeferredQueue } from '../queue/deferred-queue.interface.js';
import { type ContractSuiteOptions, suiteHooks } from './contract-runner.js';
import { expect } from './expect.js';

/** A fresh deferred queue under test (one per test: queues hold a handler), retrying a failed job at least once. */
export interface DeferredQueueHarness {
  readonly queue: DeferredQueue;
  close(): Promise<void>;
}

/** The jobs a handler saw, and a way to wait for the next ones without sleeping. */
class Deliveries {
  readonly seen: string[] = [];
  private waiters: Array<{ count: number; resolve: () => void }> = [];

  add(job: DeferredJob): void {
    this.seen.push(job.itemId);
    this.waiters = this.waiters.filter((waiter) =>
      this.seen.length >= waiter.count ? (waiter.resolve(), false) : true,
    );
  }

  /** Resolves once `count` deliveries were seen in all. */
  until(count: number): Promise<void> {
    if (this.seen.length >= count) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ count, resolve }));
  }
}

/**
 * The behaviour every {@link DeferredQueue} adapter must share (docs/review-lane.md): a job reaches the
 * handler that `work` registered, carrying the item id and nothing else; jobs enqueued before `work` wait
 * for it; every distinct job is delivered; a job whose handler rejects is delivered again (at least once:
 * the review lane's execution claim, not the queue, makes redelivery harmless); and a re-queue
 * (`{ requeue: true }`) is delivered even after the item's first job finished. `setup` runs once per test.
 *
 * @example
 * describeDeferredQueueContract('in-process', async () => ({ queue: new InProcessDeferredQueue(), close: async () => {} }));
 */
export function describeDeferredQueueContract(
  label: string,
  setup: () => Promise<DeferredQueueHarness>,
  options: ContractSuiteOptions = {},
): void {
  const { describe, it } = suiteHooks(options);
  const withQueue = async (test: (queue: DeferredQueue, deliveries: Deliveries, work: WorkFn) => Promise<void>) => {
    const harness = await setup();
    const deliveries = new Deliveries();
    const work: WorkFn = (handle = async (job) => ({ itemId: job.itemId, executed: true })) =>
      harness.queue.work(async (job) => {
        deliveries.add(job);
        return handle(job);
      });
    try {
      await test(harness.queue, deliveries, work);
    } finally {
      await harness.close();
    }
  };

  describe(`DeferredQueue contract [${label}]`, () => {
    it('delivers an enqueued job to the handler, with the item id only', async () => {
      await withQueue(async (queue, deliveries, work) => {
        const received: unknown[] = [];
        await work(async (job) => {
          received.push(job);
          return { itemId: job.itemId, executed: true };
        });
        await queue.enqueue({ itemId: 'rvw_a', smuggled: 'actor' } as DeferredJob);
        await deliveries.until(1);
        expect(received).toEqual([{ itemId: 'rvw_a' }]);
      });
    });

    it('keeps jobs enqueued before work starts, and delivers each distinct job', async () => {
      await withQueue(async (queue, deliveries, work) => {
        for (const itemId of ['rvw_1', 'rvw_2', 'rvw_3']) await queue.enqueue({ itemId });
        await work();
        await deliveries.until(3);
        expect([...deliveries.seen].sort()).toEqual(['rvw_1', 'rvw_2', 'rvw_3']);
      });
    });

    it('delivers a job again after its handler rejected', async () => {
      await withQueue(async (queue, deliveries, work) => {
        let failures = 0;
        await work(async (job) => {
          if (failures++ === 0) throw new Error('the executor failed');
          return { itemId: job.itemId, executed: true };
        });
        await queue.enqueue({ itemId: 'rvw_retried' });
        await deliveries.until(2);
        expect(deliveries.seen.slice(0, 2)).toEqual(['rvw_retried', 'rvw_retried']);
      });
    });

    it("delivers a re-queued job even after the item's first job was delivered", async () => {
      await withQueue(async (queue, deliveries, work) => {
        await work();
        await queue.enqueue({ itemId: 'rvw_lost' });
        await deliveries.until(1);
        await queue.enqueue({ itemId: 'rvw_lost' }, { requeue: true });
        await deliveries.until(2);
        expect(deliveries.seen).toEqual(['rvw_lost', 'rvw_lost']);
      });
    });
  });
}

type WorkFn = (handle?: (job: DeferredJob) => Promise<DeferredJobOutcome>) => Promise<void>;
