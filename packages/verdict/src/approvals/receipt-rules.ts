import type {
  PendingReceiptLimits,
  ReceiptBatchDecision,
  ReceiptBatchItemDecision,
  ReceiptBatchTransition,
  ReceiptCheck,
  ReceiptIssue,
  ReceiptKey,
  ReceiptTransition,
} from './approval-receipt-store.interface.js';
import type { ApprovalReceipt } from './approval-receipt.js';
import { ReceiptStatus } from './receipt-status.js';

/** Expired when `now >= expiresAt`. */
export function isExpired(receipt: Pick<ApprovalReceipt, 'expiresAt'>, now: Date): boolean {
  return now.getTime() >= receipt.expiresAt.getTime();
}

/**
 * The outcome of checking `key` against the receipts of its tool call and capability, in docs/approvals.md
 * order. Shared by every adapter: validation reads, and consumption classifies a refused update with it.
 * `tombstoned`: the key's consumed receipt was pruned (asked only when {@link asksTombstone} says so).
 */
export function checkReceipt(
  candidates: readonly ApprovalReceipt[],
  key: ReceiptKey,
  now: Date,
  tombstoned = false,
): ReceiptCheck {
  const forCall = candidates.filter((r) => r.toolCallId === key.toolCallId && r.capability === key.capability);
  const receipt = forCall.find((r) => r.bindingFingerprint === key.bindingFingerprint);
  if (receipt === undefined) {
    // A pruned consumed receipt left only its tombstone: its replay is still a replay, whatever other receipts its
    // tool call has (another binding, or another principal's call under a reused id).
    if (tombstoned) return { outcome: 'consumed', receipt: null };
    // Arguments changed only against a receipt the same principal asked in the same conversation: another's under a
    // reused tool-call id says nothing about this proposal. An approver's edit closed the call's receipt (ADR 0124):
    // the edited proposal's other arguments are not a changed approval.
    const asked = forCall.filter((r) => sameAsker(r, key));
    const edited = asked.every((r) => r.status === ReceiptStatus.Superseded);
    return { outcome: asked.length === 0 || edited ? 'not_found' : 'mismatch', receipt: null };
  }
  if (isExpired(receipt, now)) return { outcome: 'expired', receipt };
  if (
    receipt.status === ReceiptStatus.Pending ||
    receipt.status === ReceiptStatus.Rejected ||
    receipt.status === ReceiptStatus.Superseded
  )
    return { outcome: 'invalid_state', receipt };
  return { outcome: receipt.status === ReceiptStatus.Consumed ? 'consumed' : 'approved', receipt };
}

/**
 * Whether `receipt` was asked by the principal, and in the conversation, whose fingerprints `asker` carries: any
 * receipt when it carries no principal, any conversation when it carries none. A receipt stored without them
 * matches no named principal.
 *
 * The fields stay optional: {@link checkReceipt} passes the `ReceiptKey` an adapter was given, and that public
 * contract makes an unset fingerprint mean "any receipt of the tool call" (`null`: the receipts stored without one).
 * `askedBy` always passes both.
 */
export function sameAsker(
  receipt: ApprovalReceipt,
  asker: Pick<ReceiptKey, 'principalFingerprint' | 'conversationFingerprint'>,
): boolean {
  if (asker.principalFingerprint === undefined) return true;
  return (
    (receipt.principalFingerprint ?? null) === asker.principalFingerprint &&
    (asker.conversationFingerprint === undefined ||
      (receipt.conversationFingerprint ?? null) === asker.conversationFingerprint)
  );
}

/**
 * Whether {@link checkReceipt} needs to know if `key` was tombstoned: no receipt of its tool call and capability
 * has its binding, so it may have been consumed and pruned.
 */
export function asksTombstone(candidates: readonly ApprovalReceipt[], key: ReceiptKey): boolean {
  return !candidates.some(
    (r) =>
      r.toolCallId === key.toolCallId &&
      r.capability === key.capability &&
      r.bindingFingerprint === key.bindingFingerprint,
  );
}

/** Why an approve/reject of `receipt` (found by id, or `null`) did not apply. */
export function refusedTransition(receipt: ApprovalReceipt | null, toolCallId: string, now: Date): ReceiptTransition {
  if (receipt === null || receipt.toolCallId !== toolCallId) return { outcome: 'not_found' };
  if (receipt.status === ReceiptStatus.Pending && isExpired(receipt, now)) return { outcome: 'expired' };
  return { outcome: 'invalid_state' };
}

/**
 * Whether `limits` refuse a new pending receipt for `request` (ADR 0015), given receipts that include every pending
 * one of the limits' principal (any capability, any conversation) and every pending one of the request's tool call
 * (any principal); others may be given too and are not counted, nor is a receipt given twice (by id) counted twice.
 * Refused when one of them is pending and unexpired for the same tool-call id in the same conversation
 * (`limits.conversationFingerprint`; unset: in any conversation) under one of the asker's fingerprints
 * (`pendingLimitFingerprints`: a capability keying actors differently does not make the actor another asker, ADR
 * 0184), or `maxPending` of them are pending and unexpired under the same principal and capability. Adapters
 * evaluate it under a lock (or in one statement) together with the insert.
 */
export function exceedsPendingLimits(
  candidates: readonly ApprovalReceipt[],
  request: Pick<ReceiptIssue, 'toolCallId' | 'capability' | 'now'> & { readonly limits: PendingReceiptLimits },
): boolean {
  const { limits } = request;
  const byId = new Map(candidates.map((r) => [r.id, r]));
  const pending = [...byId.values()].filter((r) => r.status === ReceiptStatus.Pending && !isExpired(r, request.now));
  const askers = new Set(pendingLimitFingerprints(limits));
  const sameCall = (r: ApprovalReceipt) =>
    r.toolCallId === request.toolCallId &&
    r.principalFingerprint != null &&
    askers.has(r.principalFingerprint) &&
    (limits.conversationFingerprint === undefined || r.conversationFingerprint === limits.conversationFingerprint);
  if (pending.some(sameCall)) return true;
  const ofCapability = (r: ApprovalReceipt) =>
    r.principalFingerprint === limits.principalFingerprint && r.capability === request.capability;
  return pending.filter(ofCapability).length >= limits.maxPending;
}

/**
 * The principal fingerprints whose pending receipts of a tool call refuse another (ADR 0184): `principalFingerprint`
 * and the limits' `askerFingerprints`, each once, `principalFingerprint` first.
 */
export function pendingLimitFingerprints(limits: PendingReceiptLimits): string[] {
  return [...new Set([limits.principalFingerprint, ...(limits.askerFingerprints ?? [])])];
}

/**
 * Why a batch decision must change nothing, given every receipt of the batch (read under the adapter's lock), or
 * `null` when it applies: no receipt (`not_found`); an item that is not a pending receipt of the batch with its
 * tool call, items asked by different principals or in different conversations, an item named twice, or a pending
 * receipt of the items' principal and conversation left undecided (`invalid_state`: decided before, or not the batch
 * the approver saw); an item expired (`expired`). Another principal's receipts under the same batch id are not the
 * items' batch: they neither count nor change. Shared by every adapter (ADR 0102).
 */
export function refusedBatchDecision(
  ofBatch: readonly ApprovalReceipt[],
  { items, now }: Pick<ReceiptBatchDecision, 'items' | 'now'>,
): Exclude<ReceiptBatchTransition, { outcome: 'decided' }> | null {
  if (ofBatch.length === 0) return { outcome: 'not_found' };
  const first = ofBatch.find((r) => r.id === items[0]?.receiptId);
  // Whose batch it is: the first item's principal and conversation (the service names only the requester's receipts).
  const asker = {
    principalFingerprint: first?.principalFingerprint ?? null,
    conversationFingerprint: first?.conversationFingerprint ?? null,
  };
  const pending = ofBatch.filter((r) => r.status === ReceiptStatus.Pending && sameAsker(r, asker));
  const named = new Set(items.map((item) => item.receiptId));
  const exact =
    first !== undefined &&
    named.size === items.length &&
    pending.length === items.length &&
    items.every((item) => pending.some((r) => r.id === item.receiptId && r.toolCallId === item.toolCallId));
  if (!exact) return { outcome: 'invalid_state' };
  if (pending.some((r) => isExpired(r, now))) return { outcome: 'expired' };
  return null;
}

/** The receipt `item` leaves behind when its batch is decided: decided by `by` at `now`, its arguments cleared. */
export function decidedInBatch(
  receipt: ApprovalReceipt,
  verdict: ReceiptBatchItemDecision['verdict'],
  by: string,
  now: Date,
): ApprovalReceipt {
  const change =
    verdict === 'approve'
      ? { status: ReceiptStatus.Approved, approvedBy: by, approvedAt: now }
      : {
          status: verdict === 'supersede' ? ReceiptStatus.Superseded : ReceiptStatus.Rejected,
          rejectedBy: by,
          rejectedAt: now,
        };
  return Object.freeze({ ...receipt, ...change, arguments: null, updatedAt: now });
}
