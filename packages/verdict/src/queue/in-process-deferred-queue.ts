import { DeferredQueueClosedError } from '../errors/deferred-queue-closed.error.js';
import type { DeferredJob, DeferredJobHandler } from './deferred-job.js';
import type { DeferredQueue } from './deferred-queue.interface.js';

/** Options of {@link InProcessDeferredQueue}. */
export interface InProcessDeferredQueueOptions {
  /** Deliveries of a job whose handler rejects, the first included. Default: 3. */
  readonly attempts?: number;
}

/**
 * A queue in process memory: jobs run on the event loop after `enqueue` returns, one at a time, retried
 * up to `attempts` times when the handler rejects. For tests and the lab; jobs die with the process.
 * `idle()` resolves when every job enqueued so far has been handled: await it instead of sleeping.
 * Once closed (at application shutdown) it refuses new jobs with a `DeferredQueueClosedError` rather than hold
 * them where nothing runs them, and a job waiting, not started, when it closed is never run (the item stays
 * `approved`); `work()` opens it again.
 *
 * @example
 * const queue = new InProcessDeferredQueue();
 * VerdictModule.forRoot({ ..., review: { items: new InMemoryReviewItemStore(), queue, rehydrate } });
 * await reviews.approve(itemId, reviewer);
 * await queue.idle();
 */
export class InProcessDeferredQueue implements DeferredQueue {
  private readonly waiting: Array<{ job: DeferredJob; attempt: number }> = [];
  private handler: DeferredJobHandler | null = null;
  private draining: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly attempts: number;
  /** Jobs whose last attempt failed, with the error. */
  readonly failed: Array<{ job: DeferredJob; error: unknown }> = [];

  constructor(options: InProcessDeferredQueueOptions = {}) {
    this.attempts = options.attempts ?? 3;
  }

  /** @throws DeferredQueueClosedError once the queue is closed (and not worked again): nothing would run the job. */
  async enqueue(job: DeferredJob): Promise<void> {
    if (this.closed) throw new DeferredQueueClosedError(job.itemId);
    this.waiting.push({ job: { itemId: job.itemId }, attempt: 1 });
    this.drain();
  }

  async work(handler: DeferredJobHandler): Promise<void> {
    this.handler = handler;
    this.closed = false;
    this.drain();
  }

  async close(): Promise<void> {
    this.closed = true;
    this.handler = null;
    await this.draining;
  }

  /** Resolves when no job is waiting or running (jobs enqueued meanwhile included). */
  async idle(): Promise<void> {
    let seen: Promise<void>;
    do {
      seen = this.draining;
      await seen;
    } while (seen !== this.draining || (this.handler !== null && this.waiting.length > 0));
  }

  private drain(): void {
    this.draining = this.draining.then(async () => {
      // Off the caller's stack: a job never runs inside the `enqueue` (or the approval) that added it.
      await new Promise<void>((resolve) => setImmediate(resolve));
      while (this.handler !== null && this.waiting.length > 0) {
        const next = this.waiting.shift()!;
        try {
          await this.handler(next.job);
        } catch (error) {
          if (next.attempt < this.attempts) this.waiting.push({ job: next.job, attempt: next.attempt + 1 });
          else this.failed.push({ job: next.job, error });
        }
      }
    });
  }
}
