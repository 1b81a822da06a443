import type { JsonObject } from '../fingerprints/json-value.js';
import type { ApproverProvenance } from '../provenance/approver-provenance.js';
import type { ReviewItem } from './review-item.js';

/** What a reviewer queue may show about a pending item: trusted data only, never the arguments or model text. */
export interface PendingReview {
  readonly itemId: string;
  readonly capability: string;
  /** The policy's `reason`. */
  readonly reason: string;
  /** The policy's `describe` of the bound target (trusted data), `null` when it has none. */
  readonly description: string | null;
  /** The trusted facts the reviewer's CASL ability is checked against. */
  readonly subject: JsonObject | null;
  readonly tenant: string | null;
  readonly expiresAt: Date;
  readonly createdAt: Date;
  /** Which sources were in context and which argument came from which untrusted source; `null` when not analysed. */
  readonly provenance: ApproverProvenance | null;
}

/** The reviewer's view of `item`. */
export function pendingReviewOf(item: ReviewItem): PendingReview {
  return {
    itemId: item.id,
    capability: item.capability,
    reason: item.reason,
    description: item.description,
    subject: item.subject,
    tenant: item.tenant,
    expiresAt: item.expiresAt,
    createdAt: item.createdAt,
    provenance: item.provenance ?? null,
  };
}
