import type { ReviewItem } from './review-item.js';

/** A review item to park: everything but the state, which starts `pending` (or `approved` for a direct enqueue). */
export type ReviewItemDraft = Omit<
  ReviewItem,
  'status' | 'decidedBy' | 'decidedAt' | 'settledAt' | 'createdAt' | 'updatedAt'
> & {
  readonly now: Date;
};

/** A reviewer's decision of one item. `by` is an opaque application id, never PII. */
export interface ReviewItemDecision {
  readonly id: string;
  readonly verdict: 'approve' | 'reject';
  readonly by: string;
  readonly now: Date;
}

/** What a decision did: the item as it left it, or why it did not apply. */
export type ReviewItemTransition =
  | { readonly outcome: 'approved' | 'rejected'; readonly item: ReviewItem }
  | { readonly outcome: 'not_found' | 'expired' | 'invalid_state'; readonly item: ReviewItem | null };

/** How a deferred run ended, for `settle`. */
export interface ReviewItemSettlement {
  readonly id: string;
  readonly outcome: 'executed' | 'refused';
  readonly now: Date;
}

/** Which pending items a reviewer queue lists. */
export interface PendingReviewQuery {
  readonly tenant: string | null;
  /** One capability, or every capability when omitted. */
  readonly capability?: string;
  readonly now: Date;
}

/**
 * Durable review items (docs/review-lane.md). Unique (capability, request_key, binding_fingerprint): a model
 * repeating the same proposal finds the item it already parked. Every transition is one atomic
 * conditional statement, so of racing decisions exactly one applies; rows are never deleted.
 */
export interface ReviewItemStore {
  /**
   * Inserts the item (`pending`, or `approved` with `approved: true`), or returns the existing row of
   * its key unchanged, whatever its state.
   */
  park(draft: ReviewItemDraft, approved?: boolean): Promise<ReviewItem>;
  /** One item by its id, or `null`. */
  find(id: string): Promise<ReviewItem | null>;
  /** Pending, unexpired items of a tenant (and capability), oldest first. */
  pending(query: PendingReviewQuery): Promise<ReviewItem[]>;
  /** `pending → approved | rejected` for the exact id, before expiry. */
  decide(decision: ReviewItemDecision): Promise<ReviewItemTransition>;
  /** `approved → executed | refused`; `false` when the item was not `approved` (settled already). */
  settle(settlement: ReviewItemSettlement): Promise<boolean>;
}

/** The methods of a {@link ReviewItemStore} Verdict calls (the review gate, `ReviewService`, the worker). */
export const REVIEW_ITEM_STORE_METHODS = [
  'park',
  'find',
  'pending',
  'decide',
  'settle',
] as const satisfies readonly (keyof ReviewItemStore)[];

/** Injection token of the configured {@link ReviewItemStore}. */
export const ReviewItemStore = Symbol('ReviewItemStore');
