import type { JobsOptions, WorkerOptions } from 'bullmq';

/** A worker's BullMQ options, less what `BullModule.forRoot` and Verdict set (connection, prefix, autorun). */
export type DeferredWorkerOptions = Omit<WorkerOptions, 'connection' | 'prefix' | 'autorun'>;

/** Options of `VerdictBullMqModule.register`. */
export interface VerdictBullMqOptions {
  /**
   * The BullMQ worker of this process (concurrency, `lockDuration`, `stalledInterval`, `maxStalledCount`),
   * or `false` for a process that only enqueues (a web server, whose lane sets `review.work: false`: a lane that works
   * the queue without a worker is a `VerdictConfigurationError` at boot). It starts when Verdict's
   * `DeferredExecutionWorker` starts working the queue, never before. Default: BullMQ's defaults.
   */
  readonly worker?: false | DeferredWorkerOptions;
  /** Options of every job added. Default: `{ attempts: 3, backoff: { type: 'exponential', delay: 1000 } }`. */
  readonly jobs?: Omit<JobsOptions, 'jobId'>;
}

/** Injection token of the {@link VerdictBullMqOptions}. */
export const VERDICT_BULLMQ_OPTIONS = Symbol('VerdictBullMqOptions');
