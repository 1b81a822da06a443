/** The BullMQ queue Verdict's deferred jobs go to (keys under the `prefix` of `BullModule.forRoot`). */
export const VERDICT_DEFERRED_QUEUE = 'verdict-deferred';
