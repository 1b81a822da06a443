/**
 * Where a review-lane record was made, in the evidence's `approvalPhase` column (stage `review`); its
 * `receiptFingerprint` column holds `sha256(review item id)`.
 */
export const ReviewPhase = {
  /** The proposal was parked (or found parked) at step 5. */
  Park: 'review_park',
  /** A reviewer approved or rejected the item, or was refused. */
  Decision: 'review_decision',
  /** An operator re-queued an approved item whose job was lost (`ReviewService.requeue`), or was refused. */
  Requeue: 'review_requeue',
  /** A worker took the item: found, unexpired, requester rehydrated. */
  Dispatch: 'review_dispatch',
  /** The deferred run compared the fresh target and requester with the reviewed binding (step 10). */
  Execution: 'review_execution',
} as const;

export type ReviewPhase = (typeof ReviewPhase)[keyof typeof ReviewPhase];
