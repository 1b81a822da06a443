import { Processor, WorkerHost } from '@nestjs/bullmq';
import { Injectable, type Type } from '@nestjs/common';
import type { Job } from 'bullmq';
import type { DeferredJob, DeferredJobOutcome } from '../queue/deferred-job.js';
import { BullMqDeferredQueue } from './bullmq-deferred-queue.js';
import { VERDICT_DEFERRED_QUEUE } from './constants.js';
import type { DeferredWorkerOptions } from './verdict-bullmq-options.interface.js';

/**
 * The `@Processor` of Verdict's queue with `options` (BullMQ reads worker options from the decorator, so
 * each registration gets its own class). Its worker does not autorun: `BullMqDeferredQueue.work` starts it
 * once Verdict's worker is ready, so no job is taken before there is a handler.
 */
export function deferredJobProcessor(options: DeferredWorkerOptions): Type<WorkerHost> {
  @Processor(VERDICT_DEFERRED_QUEUE, { ...options, autorun: false })
  @Injectable()
  class DeferredJobProcessor extends WorkerHost {
    constructor(private readonly queue: BullMqDeferredQueue) {
      super();
      queue.attach(this);
    }

    process(job: Job<DeferredJob>): Promise<DeferredJobOutcome> {
      return this.queue.handle({ itemId: job.data?.itemId });
    }
  }
  return DeferredJobProcessor;
}
