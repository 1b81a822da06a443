import type { Decision } from '../decisions/decision.js';
import type { Disposition } from '../decisions/disposition.js';
import type { Stage } from '../decisions/stage.js';
import type { ReviewItem } from '../review/review-item.js';

/**
 * Emitted (event name {@link ReviewedOperationRefused.event}) when a review item will not execute: the
 * reviewer rejected it, it expired, the requester could not be rehydrated, or the worker's re-run was
 * denied (the target changed, the requester lost the permission, a rate limit). The internal reason is
 * in evidence only; tell the user the fixed outcome on their next turn (docs/review-lane.md).
 * A duplicate delivery refused by the execution claim emits nothing: the run that holds the claim reports.
 */
export class ReviewedOperationRefused {
  static readonly event = 'verdict.reviewed_operation_refused';

  constructor(
    readonly itemId: string,
    readonly capability: string,
    readonly tenant: string | null,
    readonly conversationId: string | number | null,
    readonly stage: Stage,
    readonly disposition: Disposition,
  ) {}

  /** The event of `item` refused by `decision`. */
  static of(item: ReviewItem, decision: Decision): ReviewedOperationRefused {
    const { id, capability, tenant, conversationId } = item;
    return new ReviewedOperationRefused(id, capability, tenant, conversationId, decision.stage, decision.disposition);
  }
}
