import type {
  PendingReviewQuery,
  ReviewItemDecision,
  ReviewItemDraft,
  ReviewItemSettlement,
  ReviewItemStore,
  ReviewItemTransition,
} from './review-item-store.interface.js';
import type { ReviewItem } from './review-item.js';
import { decidedStatus, isDecidable, isReviewItemExpired, refusedDecision } from './review-item-rules.js';
import { ReviewItemStatus } from './review-item-status.js';

/** Review items in process memory: for tests and single-process development only. */
export class InMemoryReviewItemStore implements ReviewItemStore {
  private readonly items = new Map<string, ReviewItem>();

  async park({ now, ...draft }: ReviewItemDraft, approved = false): Promise<ReviewItem> {
    const existing = [...this.items.values()].find(
      (item) =>
        item.capability === draft.capability &&
        item.requestKey === draft.requestKey &&
        item.bindingFingerprint === draft.bindingFingerprint,
    );
    if (existing !== undefined) return existing;
    return this.save({
      ...draft,
      status: approved ? ReviewItemStatus.Approved : ReviewItemStatus.Pending,
      decidedBy: null,
      decidedAt: null,
      settledAt: null,
      createdAt: now,
      updatedAt: now,
    });
  }

  async find(id: string): Promise<ReviewItem | null> {
    return this.items.get(id) ?? null;
  }

  async pending({ tenant, capability, now }: PendingReviewQuery): Promise<ReviewItem[]> {
    return [...this.items.values()].filter(
      (item) =>
        item.tenant === tenant &&
        (capability === undefined || item.capability === capability) &&
        item.status === ReviewItemStatus.Pending &&
        !isReviewItemExpired(item, now),
    );
  }

  async decide(decision: ReviewItemDecision): Promise<ReviewItemTransition> {
    const item = this.items.get(decision.id) ?? null;
    if (item === null || !isDecidable(item, decision.now)) return refusedDecision(item, decision);
    const status = decidedStatus(decision.verdict);
    const { by, now } = decision;
    return { outcome: status, item: this.save({ ...item, status, decidedBy: by, decidedAt: now, updatedAt: now }) };
  }

  async settle({ id, outcome, now }: ReviewItemSettlement): Promise<boolean> {
    const item = this.items.get(id);
    if (item === undefined || item.status !== ReviewItemStatus.Approved) return false;
    this.save({ ...item, status: outcome, settledAt: now, updatedAt: now });
    return true;
  }

  private save(item: ReviewItem): ReviewItem {
    const frozen = Object.freeze(item);
    this.items.set(frozen.id, frozen);
    return frozen;
  }
}
