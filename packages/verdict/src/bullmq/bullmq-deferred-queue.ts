import { InjectQueue, type WorkerHost } from '@nestjs/bullmq';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import type { DeferredJob, DeferredJobHandler, DeferredJobOutcome } from '../queue/deferred-job.js';
import type { DeferredEnqueueOptions, DeferredQueue } from '../queue/deferred-queue.interface.js';
import { VERDICT_DEFERRED_QUEUE } from './constants.js';
import { VERDICT_BULLMQ_OPTIONS, type VerdictBullMqOptions } from './verdict-bullmq-options.interface.js';

const DEFAULT_JOBS = { attempts: 3, backoff: { type: 'exponential', delay: 1000 } } as const;

/**
 * The review lane's queue on Redis through `@nestjs/bullmq` (docs/review-lane.md). A job is
 * `{ itemId }` with the item id as BullMQ job id, so approving twice never queues twice while the job
 * is kept (an operator's re-queue adds a job of its own id). Delivery is at least once: a retried job, a duplicate, or a job a killed worker held
 * (BullMQ moves it back once its lock expires) reaches the worker again, where the execution claim
 * refuses it. Provided by `VerdictBullMqModule`; pass it as `review.queue` in `VerdictModule.forRootAsync`.
 */
@Injectable()
export class BullMqDeferredQueue implements DeferredQueue {
  private handler: DeferredJobHandler | null = null;
  private host: WorkerHost | null = null;

  constructor(
    @InjectQueue(VERDICT_DEFERRED_QUEUE) private readonly queue: Queue,
    @Inject(VERDICT_BULLMQ_OPTIONS) private readonly options: VerdictBullMqOptions,
  ) {}

  async enqueue({ itemId }: DeferredJob, options: DeferredEnqueueOptions = {}): Promise<void> {
    // A re-queue gets its own job id: the item's first job may still be kept (failed, its attempts used up).
    const jobId = options.requeue === true ? `${itemId}.requeue.${randomUUID()}` : itemId;
    await this.queue.add('deferred', { itemId }, { ...DEFAULT_JOBS, ...this.options.jobs, jobId });
  }

  async work(handler: DeferredJobHandler): Promise<void> {
    this.handler = handler;
    const worker = this.host?.worker;
    if (worker === undefined || worker.isRunning()) return;
    worker.run().catch((error: unknown) => new Logger('Verdict').error('The deferred-job worker stopped', error));
  }

  async close(): Promise<void> {
    this.handler = null;
    await this.host?.worker.close();
  }

  /** @internal The processor of this process registers itself. */
  attach(host: WorkerHost): void {
    this.host = host;
  }

  /** @internal Runs one delivered job with the registered handler. */
  handle(job: DeferredJob): Promise<DeferredJobOutcome> {
    if (this.handler === null)
      throw new Error('The deferred-job queue delivered a job before Verdict started working it.');
    return this.handler(job);
  }
}
