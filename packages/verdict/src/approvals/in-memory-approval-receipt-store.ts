import type {
  ApprovalReceiptStore,
  PendingReceiptLimits,
  ReceiptBatchDecision,
  ReceiptBatchTransition,
  ReceiptCheck,
  ReceiptDecision,
  ReceiptIssue,
  ReceiptKey,
  ReceiptPruneReport,
  ReceiptTransition,
} from './approval-receipt-store.interface.js';
import type { ApprovalReceipt } from './approval-receipt.js';
import {
  asksTombstone,
  checkReceipt,
  decidedInBatch,
  exceedsPendingLimits,
  isExpired,
  refusedBatchDecision,
  refusedTransition,
} from './receipt-rules.js';
import { ReceiptStatus } from './receipt-status.js';
import { isPrunable, receiptTombstone } from './receipt-tombstone.js';

/** Receipts (and the tombstones of pruned consumed ones) in process memory: for tests and single-process development only. */
export class InMemoryApprovalReceiptStore implements ApprovalReceiptStore {
  private readonly receipts = new Map<string, ApprovalReceipt>();
  private readonly tombstones = new Set<string>();

  issue(request: ReceiptIssue & { readonly limits: PendingReceiptLimits }): Promise<ApprovalReceipt | null>;
  issue(request: ReceiptIssue): Promise<ApprovalReceipt>;
  async issue(request: ReceiptIssue): Promise<ApprovalReceipt | null> {
    const {
      candidateId,
      toolCallId,
      capability,
      bindingFingerprint,
      reason,
      description,
      subject,
      expiresAt,
      now,
      limits,
    } = request;
    const existing = this.forCall(toolCallId, capability).find((r) => r.bindingFingerprint === bindingFingerprint);
    if (existing !== undefined) return existing;
    // Read and insert in one synchronous step: of racing issues no more than the caps allow succeed.
    if (
      limits !== undefined &&
      exceedsPendingLimits([...this.receipts.values()], { toolCallId, capability, now, limits })
    )
      return null;
    const receipt: ApprovalReceipt = Object.freeze({
      id: candidateId,
      toolCallId,
      capability,
      bindingFingerprint,
      status: ReceiptStatus.Pending,
      reason,
      description,
      subject,
      expiresAt,
      approvedBy: null,
      approvedAt: null,
      rejectedBy: null,
      rejectedAt: null,
      consumedAt: null,
      createdAt: now,
      updatedAt: now,
      principalFingerprint: limits?.principalFingerprint ?? null,
      conversationFingerprint: limits?.conversationFingerprint ?? null,
      provenance: request.provenance ?? null,
      batchId: request.batch?.id ?? null,
      arguments: request.batch?.arguments ?? null,
    });
    this.receipts.set(receipt.id, receipt);
    return receipt;
  }

  async pendingForToolCall(toolCallId: string, now: Date): Promise<ApprovalReceipt[]> {
    return [...this.receipts.values()].filter(
      (r) => r.toolCallId === toolCallId && r.status === ReceiptStatus.Pending && !isExpired(r, now),
    );
  }

  async find(receiptId: string): Promise<ApprovalReceipt | null> {
    return this.receipts.get(receiptId) ?? null;
  }

  async approve({ receiptId, toolCallId, by, now }: ReceiptDecision): Promise<ReceiptTransition> {
    return this.decide(receiptId, toolCallId, now, { status: ReceiptStatus.Approved, approvedBy: by, approvedAt: now });
  }

  async reject({ receiptId, toolCallId, by, now }: ReceiptDecision): Promise<ReceiptTransition> {
    return this.decide(receiptId, toolCallId, now, { status: ReceiptStatus.Rejected, rejectedBy: by, rejectedAt: now });
  }

  async inBatch(batchId: string): Promise<ApprovalReceipt[]> {
    return [...this.receipts.values()].filter((r) => r.batchId === batchId);
  }

  async decideBatch({ batchId, items, by, now }: ReceiptBatchDecision): Promise<ReceiptBatchTransition> {
    // Read and write in one synchronous step: of racing decisions exactly one applies.
    const ofBatch = [...this.receipts.values()].filter((r) => r.batchId === batchId);
    const refused = refusedBatchDecision(ofBatch, { items, now });
    if (refused !== null) return refused;
    const receipts = items.map((item) =>
      this.save(decidedInBatch(this.receipts.get(item.receiptId)!, item.verdict, by, now)),
    );
    return { outcome: 'decided', receipts };
  }

  async validate(key: ReceiptKey, now: Date): Promise<ReceiptCheck> {
    return this.check(key, now);
  }

  async consume(key: ReceiptKey, now: Date): Promise<ReceiptCheck> {
    const check = this.check(key, now);
    if (check.outcome !== 'approved') return check;
    const consumed = this.save({ ...check.receipt!, status: ReceiptStatus.Consumed, consumedAt: now, updatedAt: now });
    return { outcome: 'approved', receipt: consumed };
  }

  async prune(before: Date): Promise<ReceiptPruneReport> {
    let pruned = 0;
    let tombstones = 0;
    for (const receipt of [...this.receipts.values()]) {
      if (!isPrunable(receipt, before)) continue;
      if (receipt.status === ReceiptStatus.Consumed) {
        this.tombstones.add(receiptTombstone(receipt));
        tombstones++;
      }
      this.receipts.delete(receipt.id);
      pruned++;
    }
    return { pruned, tombstones };
  }

  private check(key: ReceiptKey, now: Date): ReceiptCheck {
    const candidates = this.forCall(key.toolCallId, key.capability);
    const tombstoned = asksTombstone(candidates, key) && this.tombstones.has(receiptTombstone(key));
    return checkReceipt(candidates, key, now, tombstoned);
  }

  private decide(
    receiptId: string,
    toolCallId: string,
    now: Date,
    change: Partial<ApprovalReceipt> & { status: 'approved' | 'rejected' },
  ): ReceiptTransition {
    const receipt = this.receipts.get(receiptId) ?? null;
    if (
      receipt === null ||
      receipt.toolCallId !== toolCallId ||
      receipt.status !== ReceiptStatus.Pending ||
      isExpired(receipt, now)
    ) {
      return refusedTransition(receipt, toolCallId, now);
    }
    // A decision clears a batched receipt's arguments, as a batch decision does.
    return { outcome: change.status, receipt: this.save({ ...receipt, ...change, arguments: null, updatedAt: now }) };
  }

  private forCall(toolCallId: string, capability: string): ApprovalReceipt[] {
    return [...this.receipts.values()].filter((r) => r.toolCallId === toolCallId && r.capability === capability);
  }

  private save(receipt: ApprovalReceipt): ApprovalReceipt {
    const frozen = Object.freeze(receipt);
    this.receipts.set(frozen.id, frozen);
    return frozen;
  }
}
