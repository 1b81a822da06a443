import { VerdictError } from './verdict.error.js';

/**
 * `InProcessDeferredQueue` was handed a job after it was closed: the application is shutting down (Verdict closes the
 * queue in `beforeApplicationShutdown`, while the HTTP server still takes requests), so no worker of this process
 * would ever run it. The approval (or `VerdictService.enqueue`'s parking, or a re-queue) committed, and the item stays
 * `approved`; the caller gets this error instead of a job that silently never runs. An operator re-queues the item
 * (`ReviewService.requeue`) once a worker runs, if the item store outlives the process. The context names the item
 * (`itemId`).
 */
export class DeferredQueueClosedError extends VerdictError {
  readonly code = 'VERDICT_DEFERRED_QUEUE_CLOSED';

  constructor(itemId: string) {
    super(
      'The in-process deferred-job queue is closed (the application is shutting down), so the job was not taken. The review item stays approved: re-queue it (ReviewService.requeue) once a worker runs.',
      { itemId },
    );
  }
}
