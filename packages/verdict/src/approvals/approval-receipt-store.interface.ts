import type { JsonObject, JsonValue } from '../fingerprints/json-value.js';
import type { ApproverProvenance } from '../provenance/approver-provenance.js';
import type { ApprovalReceipt } from './approval-receipt.js';

/** What identifies the proposal a receipt approves. */
export interface ReceiptKey {
  readonly toolCallId: string;
  readonly capability: string;
  readonly bindingFingerprint: string;
  /**
   * Who asks (`PendingReceiptLimits.principalFingerprint`), and in which conversation
   * (`PendingReceiptLimits.conversationFingerprint`): only their own receipts of the tool call can make the proposal a
   * `mismatch` (arguments changed since they were asked about). Another principal's or conversation's receipt under
   * a reused tool-call id is `not_found`. Unset (a key built without them): any receipt of the tool call counts;
   * `null`: the receipts stored without one (issued without limits). A receipt passed as a key names its own.
   */
  readonly principalFingerprint?: string | null;
  readonly conversationFingerprint?: string | null;
}

/**
 * The caps a new pending receipt must fit under (ADR 0015). Pending means `pending` and unexpired at the
 * issue's `now`; the new receipt counts itself.
 */
export interface PendingReceiptLimits {
  /** `sha256(JCS({actor, tenant}))` of who asks: whose pending receipts count. Stored with the receipt. */
  readonly principalFingerprint: string;
  /** At most this many pending receipts of the principal under the issue's capability (≥ 1). */
  readonly maxPending: number;
  /**
   * `sha256(JCS(conversationId ?? null))` of the conversation asked in. Stored with the receipt. When set,
   * the one-pending-receipt-per-tool-call rule counts only the principal's receipts of this conversation;
   * unset, all of the principal's (stricter; stored as `null`, so lookups never find the receipt).
   */
  readonly conversationFingerprint?: string;
  /**
   * Every principal fingerprint of the asker: its actor within its tenant under each actor key the application's
   * confirmations use (`principalFingerprint` among them; ADR 0184). The one-pending-receipt-per-tool-call rule counts
   * a pending receipt stored under any of them, so capabilities that key actors differently never give one actor two
   * pending receipts of a tool call in a conversation. `maxPending` still counts `principalFingerprint`'s only.
   * Unset: `[principalFingerprint]`.
   */
  readonly askerFingerprints?: readonly string[];
}

/** A pending receipt to issue (or the existing row for the same key to keep). */
export interface ReceiptIssue extends ReceiptKey {
  /** A fresh unpredictable id, used only when no row exists for the key. */
  readonly candidateId: string;
  readonly reason: string;
  readonly description: string | null;
  readonly subject: JsonObject | null;
  readonly expiresAt: Date;
  readonly now: Date;
  /** Stored with a new receipt (`ApprovalReceipt.provenance`); unset: `null`. */
  readonly provenance?: ApproverProvenance | null;
  /**
   * When set, a new receipt is issued only if, atomically with the insert, the principal has no pending
   * receipt for this tool-call id (any capability, under any of `limits.askerFingerprints`) in this conversation
   * (`limits.conversationFingerprint`; unset: in any) and fewer than `maxPending` under this capability (in any
   * conversation);
   * otherwise nothing is written and `issue` answers `null`. An existing row for the key is still
   * returned unchanged. Unset: no caps (the row is not counted by later limited issues either).
   */
  readonly limits?: PendingReceiptLimits;
  /** When set, the receipt joins this approval batch and keeps the validated arguments for its approver (ADR 0102). */
  readonly batch?: ReceiptBatchMembership;
}

/** The approval batch a new receipt joins, and what its approver is shown of the proposal. */
export interface ReceiptBatchMembership {
  /** The batch id (a fingerprint of the model turn). */
  readonly id: string;
  /** The proposal's validated arguments. */
  readonly arguments: JsonValue;
}

/** One item of a batch decision: the receipt (by id and tool call) and what becomes of it. */
export interface ReceiptBatchItemDecision {
  readonly receiptId: string;
  readonly toolCallId: string;
  /**
   * `approve` → `approved`; `reject` → `rejected`; `supersede` (an edit: the edited call is a new proposal) →
   * `superseded`, closed by `by` as a rejection is (`rejectedBy`, `rejectedAt`).
   */
  readonly verdict: 'approve' | 'reject' | 'supersede';
}

/** A decision of a whole batch: one item per pending receipt of the batch, each exactly once. */
export interface ReceiptBatchDecision {
  readonly batchId: string;
  readonly items: readonly ReceiptBatchItemDecision[];
  readonly by: string;
  readonly now: Date;
}

/**
 * What a batch decision did: every item decided (`decided`, the receipts as left), or nothing changed because the
 * batch has no receipt (`not_found`), one of its items expired (`expired`), or the items are not exactly the
 * batch's pending receipts — a batch decided before, an item decided on its own, an item of another batch
 * (`invalid_state`).
 */
export type ReceiptBatchTransition =
  | { readonly outcome: 'decided'; readonly receipts: readonly ApprovalReceipt[] }
  | { readonly outcome: 'not_found' | 'expired' | 'invalid_state' };

/**
 * Validation and consumption outcomes, in the order they are decided (docs/approvals.md):
 * `not_found` (no receipt for this tool call and capability, or only superseded ones of other bindings) →
 * `mismatch` (other receipts exist, none with this binding) → `expired` → `invalid_state` (pending, rejected or
 * superseded) → `approved` | `consumed`.
 */
export type ReceiptOutcome = 'not_found' | 'mismatch' | 'expired' | 'invalid_state' | 'approved' | 'consumed';

/** A validation or consumption answer, with the receipt when one matched the key. */
export interface ReceiptCheck {
  readonly outcome: ReceiptOutcome;
  readonly receipt: ApprovalReceipt | null;
}

/** What an approve or reject did. */
export type ReceiptTransition =
  | { readonly outcome: 'approved' | 'rejected'; readonly receipt: ApprovalReceipt }
  | { readonly outcome: 'not_found' | 'expired' | 'invalid_state' };

/** An approve or reject request: all three ids required; `by` is an opaque application id. */
export interface ReceiptDecision {
  readonly receiptId: string;
  readonly toolCallId: string;
  readonly by: string;
  readonly now: Date;
}

/**
 * Durable approval receipts (docs/approvals.md). Unique (tool_call_id, capability, binding_fingerprint);
 * terminal rows are kept forever (deleting one would let an old tool call become a new approval).
 * Every transition is atomic; adapters refuse to run inside an outer transaction on the same connection.
 */
export interface ApprovalReceiptStore {
  /**
   * Inserts a pending receipt for the key, or returns the existing row for it unchanged; with `limits`,
   * `null` when a cap refused the new receipt (nothing was written). Caps are checked and the row
   * inserted atomically: of racing issues, no more than the caps allow ever succeed.
   */
  issue(request: ReceiptIssue & { readonly limits: PendingReceiptLimits }): Promise<ApprovalReceipt | null>;
  issue(request: ReceiptIssue): Promise<ApprovalReceipt>;
  /**
   * Pending, unexpired receipts for a tool-call id (any capability, any principal), with their principal
   * and conversation fingerprints: `ApprovalService` picks the requester's among them. Never hand the
   * result to an approver unfiltered (tool-call ids are not globally unique).
   */
  pendingForToolCall(toolCallId: string, now: Date): Promise<ApprovalReceipt[]>;
  /** One receipt by its id, or `null`. */
  find(receiptId: string): Promise<ApprovalReceipt | null>;
  /**
   * `pending → approved`, only for the exact receipt id and tool-call id, before expiry; a batched receipt's
   * `arguments` are cleared (ADR 0102).
   */
  approve(decision: ReceiptDecision): Promise<ReceiptTransition>;
  /** `pending → rejected`, likewise. */
  reject(decision: ReceiptDecision): Promise<ReceiptTransition>;
  /** The receipts of an approval batch, in any state, oldest first (ADR 0102). Optional: stores without it have no batches. */
  inBatch?(batchId: string): Promise<ApprovalReceipt[]>;
  /**
   * Decides every pending receipt of a batch at once, atomically: either each item's transition applies and the
   * batch's arguments are cleared, or nothing changes ({@link ReceiptBatchTransition}). Optional, as `inBatch`.
   */
  decideBatch?(decision: ReceiptBatchDecision): Promise<ReceiptBatchTransition>;
  /** Read-only check of the receipt for `key` at `now`. */
  validate(key: ReceiptKey, now: Date): Promise<ReceiptCheck>;
  /** `approved → consumed` for `key`, atomically: of racing callers exactly one gets `approved`. */
  consume(key: ReceiptKey, now: Date): Promise<ReceiptCheck>;
  /**
   * Optional retention: deletes receipts consumed, rejected or superseded before `before`, and pending or approved
   * ones expired before it; a consumed one leaves a tombstone (the fingerprint of its key only), so
   * `validate` and `consume` of that key still answer `consumed`. Tombstones are kept. A consumed receipt is never
   * deleted without its tombstone, even one consumed while the prune runs by a process whose clock disagrees with
   * `before`: delete only what was found prunable, in the status it was found in.
   */
  prune?(before: Date): Promise<ReceiptPruneReport>;
}

/** The methods of an {@link ApprovalReceiptStore} Verdict calls (the optional ones aside): what boot checks ask for. */
export const APPROVAL_RECEIPT_STORE_METHODS = [
  'issue',
  'pendingForToolCall',
  'find',
  'approve',
  'reject',
  'validate',
  'consume',
] as const satisfies readonly (keyof ApprovalReceiptStore)[];

/** Injection token of the configured {@link ApprovalReceiptStore}. */
/** What {@link ApprovalReceiptStore.prune} removed. */
export interface ReceiptPruneReport {
  /** Receipts deleted. */
  readonly pruned: number;
  /** Tombstones written for the consumed ones among them. */
  readonly tombstones: number;
}

export const ApprovalReceiptStore = Symbol('ApprovalReceiptStore');
