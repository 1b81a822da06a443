import type { ReviewItemDecision, ReviewItemTransition } from './review-item-store.interface.js';
import type { ReviewItem } from './review-item.js';
import { ReviewItemStatus } from './review-item-status.js';
import { isStorableText } from '../shared/storable-text.js';

/**
 * A review item id as the services and the review endpoint take it: a non-blank string. Anything else names no item
 * on any store: the services refuse it with a typed error, the endpoint answers 404.
 */
export function isItemId(itemId: unknown): itemId is string {
  return typeof itemId === 'string' && itemId.trim() !== '';
}

/** The longest review item id: the items' `id` column is `varchar(64)` on every engine (Verdict's ids have 47). */
export const MAX_REVIEW_ITEM_ID_LENGTH = 64;

/**
 * Whether a store is asked for `itemId` at all: an id longer than {@link MAX_REVIEW_ITEM_ID_LENGTH}, or holding
 * U+0000 or a lone surrogate ({@link isStorableText}), names no item on any store, and is answered as an unknown one
 * (`not_found`, 404) without a lookup — PostgreSQL would fail the lookup of a U+0000 with a raw `QueryFailedError`.
 */
export function mayNameItem(itemId: string): boolean {
  return itemId.length <= MAX_REVIEW_ITEM_ID_LENGTH && isStorableText(itemId);
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
