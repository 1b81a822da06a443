/**
 * What a queue carries: the review item's id and nothing else. The worker reads the item from the
 * `ReviewItemStore` and rehydrates the requester from the application's trusted store; nothing in a job
 * is believed on its own.
 */
export interface DeferredJob {
  readonly itemId: string;
}

/** What a worker made of one job. `retry` tells a queue adapter to deliver the job again later. */
export interface DeferredJobOutcome {
  readonly itemId: string;
  readonly executed: boolean;
}

/** Runs one delivered job; a rejection is a fault the queue retries (if it has attempts left). */
export type DeferredJobHandler = (job: DeferredJob) => Promise<DeferredJobOutcome>;
