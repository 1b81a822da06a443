import type { Decision } from '../decisions/decision.js';
import type { Disposition } from '../decisions/disposition.js';
import type { Stage } from '../decisions/stage.js';
import type { ReviewItem } from '../review/review-item.js';
import { reviewItemFingerprint } from '../review/review-item-fingerprint.js';

/**
 * Emitted (event name {@link ReviewedOperationRefused.event}) when a review item will not execute: the
 * reviewer rejected it, it expired, the requester could not be rehydrated, or the worker's re-run was
 * denied (the target changed, the requester lost the permission, a rate limit). The internal reason is
 * in evidence only; tell the user the fixed outcome on their next turn (docs/review-lane.md).
 * A duplicate delivery refused by the execution claim emits nothing: the run that holds the claim reports.
 * The item is named by its fingerprint only (`reviewItemFingerprint(itemId)`), as in evidence.
 */
export class ReviewedOperationRefused {
  static readonly event = 'verdict.reviewed_operation_refused';

  constructor(
    /** `sha256(item id)`: the evidence's `receiptFingerprint` of the item's records. Never the id. */
    readonly itemFingerprint: string,
    readonly capability: string,
    readonly tenant: string | null,
    readonly conversationId: string | number | null,
    readonly stage: Stage,
    readonly disposition: Disposition,
  ) {}

  /** The event of `item` refused by `decision`. */
  static of(item: ReviewItem, decision: Decision): ReviewedOperationRefused {
    const { capability, tenant, conversationId } = item;
    return new ReviewedOperationRefused(
      reviewItemFingerprint(item.id),
      capability,
      tenant,
      conversationId,
      decision.stage,
      decision.disposition,
    );
  }
}
