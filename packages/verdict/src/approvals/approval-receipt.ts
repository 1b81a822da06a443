import type { JsonObject, JsonValue } from '../fingerprints/json-value.js';
import type { ApproverProvenance } from '../provenance/approver-provenance.js';
import type { ReceiptStatus } from './receipt-status.js';

/**
 * A human's approval of one exact proposal: this tool call, this capability, this binding (actor,
 * tenant, resource, version, arguments — stored only as a fingerprint). Single use, expiring.
 */
export interface ApprovalReceipt {
  /** 256 random bits, base64url: unpredictable, never shown to the model. */
  readonly id: string;
  /** The provider's tool-call id: transport metadata, not globally unique. */
  readonly toolCallId: string;
  readonly capability: string;
  /** `sha256(JCS({capability, execution_target_policy, arguments, binding}))`. */
  readonly bindingFingerprint: string;
  readonly status: ReceiptStatus;
  /** Why confirmation is required (the capability's `reason`), for the approval UI. */
  readonly reason: string;
  /**
   * What is being approved, in the application's words, built from trusted data (the resolved target)
   * by the capability's `describe`; never model-written text. `null` when the capability has none.
   */
  readonly description: string | null;
  /**
   * What the approver's CASL ability is checked against (`can('approve', subject('Approval', {...}))`):
   * trusted facts about the bound resource (owner, tenant, id), from the capability's `subject`.
   */
  readonly subject: JsonObject | null;
  /** Expired when `now >= expiresAt`. */
  readonly expiresAt: Date;
  /** Opaque application ids (`customer:72`), never PII. */
  readonly approvedBy: string | null;
  readonly approvedAt: Date | null;
  readonly rejectedBy: string | null;
  readonly rejectedAt: Date | null;
  readonly consumedAt: Date | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  /**
   * `sha256(JCS({actor: actorKey(actor), tenant}))` of who asked (ADR 0015), `null` when issued without
   * limits. `ApprovalService` lookups match it against the requester: a receipt without it (`null`, or a
   * store that does not keep it) is never found for anyone.
   */
  readonly principalFingerprint?: string | null;
  /** `sha256(JCS(conversationId ?? null))` of the conversation it was asked in; `null` when issued without one (as above). */
  readonly conversationFingerprint?: string | null;
  /**
   * What the approver is shown of the proposal's provenance (trusted data only: source labels, declared
   * argument paths, content fingerprints), when the provenance stage analysed it; `null` otherwise, or in a
   * store that does not keep it. Never content: `ApprovalService.untrustedContent` releases that.
   */
  readonly provenance?: ApproverProvenance | null;
  /**
   * The approval batch the receipt was issued in (docs/approvals.md, "Batch approvals"; ADR 0102): a fingerprint of
   * the model turn, never a tool-call id; `null` for a receipt asked on its own, or in a store that does not keep it.
   */
  readonly batchId?: string | null;
  /**
   * The validated arguments of a batched proposal, for the approver who decides the batch (and may edit them);
   * cleared when the receipt is decided, in its batch or on its own. `null` for a receipt asked on its own. Never
   * written to evidence.
   */
  readonly arguments?: JsonValue | null;
}
