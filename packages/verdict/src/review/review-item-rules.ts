import type { ReviewItemDecision, ReviewItemTransition } from './review-item-store.interface.js';
import type { ReviewItem } from './review-item.js';
import { ReviewItemStatus } from './review-item-status.js';

/**
 * A review item id as the services and the review endpoint take it: a non-blank string. Anything else names no item
 * on any store: the services refuse it with a typed error, the endpoint answers 404.
 */
export function isItemId(itemId: unknown): itemId is string {
  return typeof itemId === 'string' && itemId.trim() !== '';
}

/** Expired when `now >= expiresAt`. */
export function isReviewItemExpired(item: Pick<ReviewItem, 'expiresAt'>, now: Date): boolean {
  return now.getTime() >= item.expiresAt.getTime();
}

/** Whether `decision` applies to `item`: pending and unexpired. Every adapter's statement encodes the same rule. */
export function isDecidable(item: ReviewItem, now: Date): boolean {
  return item.status === ReviewItemStatus.Pending && !isReviewItemExpired(item, now);
}

/** Why a decision of `item` (found by id, or `null`) did not apply. Shared by every adapter. */
export function refusedDecision(
  item: ReviewItem | null,
  { now }: Pick<ReviewItemDecision, 'now'>,
): ReviewItemTransition {
  if (item === null) return { outcome: 'not_found', item: null };
  if (item.status === ReviewItemStatus.Pending && isReviewItemExpired(item, now)) return { outcome: 'expired', item };
  return { outcome: 'invalid_state', item };
}

/** The state a decision leads to. */
export function decidedStatus(verdict: ReviewItemDecision['verdict']): 'approved' | 'rejected' {
  return verdict === 'approve' ? ReviewItemStatus.Approved : ReviewItemStatus.Rejected;
}
