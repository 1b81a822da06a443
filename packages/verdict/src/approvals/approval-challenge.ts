import type { JsonObject } from '../fingerprints/json-value.js';
import type { ApproverProvenance } from '../provenance/approver-provenance.js';
import type { ApprovalReceipt } from './approval-receipt.js';

/**
 * What an application needs to ask a human: handed to the application (the LangGraph interrupt value,
 * or `ExecutionResult.challenge`), never to the model.
 */
export interface ApprovalChallenge {
  readonly receiptId: string;
  readonly toolCallId: string;
  readonly capability: string;
  readonly reason: string;
  readonly description: string | null;
  /** See `ConfirmationPolicy.subject`. */
  readonly subject: JsonObject | null;
  readonly expiresAt: Date;
  /** Who asked, fingerprinted only (`ApprovalReceipt.principalFingerprint`); `null` when the receipt has none. */
  readonly principalFingerprint: string | null;
  /** The conversation it was asked in, fingerprinted only; `null` when the receipt has none. */
  readonly conversationFingerprint: string | null;
  /**
   * Which sources were in context and which argument came from which untrusted source (trusted data only,
   * never values or content); `null` when the provenance stage did not analyse the proposal.
   */
  readonly provenance: ApproverProvenance | null;
}

/** The challenge for a pending receipt. */
export function challengeOf(receipt: ApprovalReceipt): ApprovalChallenge {
  return {
    receiptId: receipt.id,
    toolCallId: receipt.toolCallId,
    capability: receipt.capability,
    reason: receipt.reason,
    description: receipt.description,
    subject: receipt.subject,
    expiresAt: receipt.expiresAt,
    principalFingerprint: receipt.principalFingerprint ?? null,
    conversationFingerprint: receipt.conversationFingerprint ?? null,
    provenance: receipt.provenance ?? null,
  };
}
