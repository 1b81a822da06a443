import { InjectQueue, type WorkerHost } from '@nestjs/bullmq';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { DeferredEnqueueTimeoutError } from '../errors/deferred-enqueue-timeout.error.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import type { DeferredJob, DeferredJobHandler, DeferredJobOutcome } from '../queue/deferred-job.js';
import type { DeferredEnqueueOptions, DeferredQueue } from '../queue/deferred-queue.interface.js';
import { VERDICT_DEFERRED_QUEUE } from './constants.js';
import { VERDICT_BULLMQ_OPTIONS, type VerdictBullMqOptions } from './verdict-bullmq-options.interface.js';

const DEFAULT_JOBS = { attempts: 3, backoff: { type: 'exponential', delay: 1000 } } as const;

/**
 * How long `enqueue` waits for Redis to take a job. BullMQ keeps an add waiting until Redis is reachable, for good;
 * a reachable Redis takes it in milliseconds, and a dropped connection is retried within seconds (ADR 0182).
 */
const ENQUEUE_TIMEOUT_MS = 5000;

/**
 * The review lane's queue on Redis through `@nestjs/bullmq` (docs/review-lane.md). A job is
 * `{ itemId }` with the item id as BullMQ job id, so approving twice never queues twice while the job
 * is kept (an operator's re-queue adds a job of its own id). Delivery is at least once: a retried job, a duplicate, or a job a killed worker held
 * (BullMQ moves it back once its lock expires) reaches the worker again, where the execution claim
 * refuses it. Provided by `VerdictBullMqModule`; pass it as `review.queue` in `VerdictModule.forRootAsync`.
 * An add Redis does not take within {@link ENQUEUE_TIMEOUT_MS} rejects with a `DeferredEnqueueTimeoutError`.
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
    await this.bounded(
      itemId,
      this.queue.add('deferred', { itemId }, { ...DEFAULT_JOBS, ...this.options.jobs, jobId }),
    );
  }

  /**
   * @throws VerdictConfigurationError when this process registered `VerdictBullMqModule` with `worker: false`:
   * nothing would ever take a job here. Verdict calls it at boot unless `review.work` is `false`.
   */
  async work(handler: DeferredJobHandler): Promise<void> {
    if (this.host === null)
      throw new VerdictConfigurationError(
        'The review lane works its BullMQ queue in this process (review.work is not false), but VerdictBullMqModule was registered with worker: false, so no job would ever run: register VerdictBullMqModule with a worker, or set review.work: false.',
      );
    this.handler = handler;
    const { worker } = this.host;
    if (worker.isRunning()) return;
    worker.run().catch((error: unknown) => new Logger('Verdict').error('The deferred-job worker stopped', error));
  }

  async close(): Promise<void> {
    this.handler = null;
    await this.host?.worker.close();
  }

  /**
   * The add, or a `DeferredEnqueueTimeoutError` once Redis has not taken it within the bound. An add that lands
   * after it is harmless: the job id is the item's (or the re-queue's own), and the item's claim runs it at most once.
   */
  private async bounded(itemId: string, adding: Promise<unknown>): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new DeferredEnqueueTimeoutError(this.queue.name, ENQUEUE_TIMEOUT_MS, itemId)),
        ENQUEUE_TIMEOUT_MS,
      );
    });
    try {
      await Promise.race([adding, timeout]);
    } finally {
      clearTimeout(timer);
    }
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
