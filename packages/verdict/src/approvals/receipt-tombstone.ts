import { fingerprint } from '../fingerprints/fingerprint.js';
import type { ReceiptKey } from './approval-receipt-store.interface.js';
import type { ApprovalReceipt } from './approval-receipt.js';
import { ReceiptStatus } from './receipt-status.js';

/**
 * What a pruned consumed receipt leaves behind (docs/evidence.md, "Retention"): the SHA-256 of its key
 * (tool-call id, capability, binding fingerprint), never the key itself, so that its replay still
 * answers `consumed`.
 */
export function receiptTombstone({ toolCallId, capability, bindingFingerprint }: ReceiptKey): string {
  return fingerprint({ toolCallId, capability, bindingFingerprint });
}

/**
 * Whether `prune(before)` removes `receipt`: consumed, rejected or superseded before `before`, or pending or
 * approved and expired before it (such a receipt can never be consumed again).
 */
export function isPrunable(receipt: ApprovalReceipt, before: Date): boolean {
  const decided =
    receipt.status === ReceiptStatus.Consumed ||
    receipt.status === ReceiptStatus.Rejected ||
    receipt.status === ReceiptStatus.Superseded;
  return decided ? receipt.updatedAt < before : receipt.expiresAt < before;
}
