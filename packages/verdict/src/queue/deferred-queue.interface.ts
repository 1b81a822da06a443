import type { DeferredJob, DeferredJobHandler } from './deferred-job.js';

/** How {@link DeferredQueue.enqueue} adds a job. */
export interface DeferredEnqueueOptions {
  /** `true` for an operator's re-queue: never deduplicated against an earlier job of the item. */
  readonly requeue?: boolean;
}

/**
 * Where approved review items wait for a worker (docs/review-lane.md): `InProcessDeferredQueue` (tests,
 * development) or the BullMQ adapter of `@verdict/nestjs/bullmq`. Delivery is at least once: a job may
 * arrive twice, after a retry or a killed worker. The execution claim of the deferred run makes that
 * harmless, so adapters need no exactly-once delivery.
 */
export interface DeferredQueue {
  /**
   * Adds a job; resolves once the queue holds it durably (as durably as the adapter is). `requeue`: an
   * operator's re-queue (`ReviewService.requeue`) of a job that may have been lost or used up its attempts,
   * so an adapter that deduplicates by item id must add a new job anyway (the claim still decides).
   */
  enqueue(job: DeferredJob, options?: DeferredEnqueueOptions): Promise<void>;
  /**
   * Starts delivering jobs to `handler` in this process (a worker). A queue never delivers before it is
   * started; Verdict starts it when the module has booted, if `review.work` is not `false`.
   */
  work(handler: DeferredJobHandler): Promise<void>;
  /**
   * Stops delivering; resolves once the jobs in flight have finished. Verdict calls it in `beforeApplicationShutdown`:
   * after every `onModuleDestroy` (a store closed there is closed under the jobs), before the HTTP server closes and
   * before any `onApplicationShutdown` (where `TypeOrmModule` and `@nestjs/bullmq` close theirs). A second
   * `app.close()` calls it again, so a closed queue answers at once.
   */
  close(): Promise<void>;
}

/** The methods of a {@link DeferredQueue} Verdict calls: `enqueue` on approval, `work` at boot, `close` at shutdown. */
export const DEFERRED_QUEUE_METHODS = ['enqueue', 'work', 'close'] as const satisfies readonly (keyof DeferredQueue)[];

/** Injection token of the configured {@link DeferredQueue}. */
export const DeferredQueue = Symbol('DeferredQueue');
