import { VerdictError } from './verdict.error.js';

/**
 * The review lane's queue did not take a job within its bound (BullMQ with Redis unreachable keeps the add
 * waiting for a connection): the approval (or `VerdictService.enqueue`'s parking, or a re-queue) committed, and
 * the item stays `approved`. An operator re-queues it once the queue is back (`ReviewService.requeue`). The add may
 * still land later; the item's execution claim makes it run at most once either way (docs/review-lane.md §3). The
 * context names the item (`itemId`): a caller of `VerdictService.enqueue` that proposes again instead parks a second
 * item, which runs too once the queue is back, unless the capability is `atMostOnce`.
 */
export class DeferredEnqueueTimeoutError extends VerdictError {
  readonly code = 'VERDICT_DEFERRED_ENQUEUE_TIMEOUT';

  constructor(queue: string, timeoutMs: number, itemId: string) {
    super(
      `The deferred-job queue "${queue}" did not take the job within ${timeoutMs} ms (is Redis reachable?). The review item stays approved: re-queue it (ReviewService.requeue) once the queue is back.`,
      { queue, timeoutMs, itemId },
    );
  }
}
