import type { JsonObject, JsonValue } from '../fingerprints/json-value.js';
import type { ApproverProvenance } from '../provenance/approver-provenance.js';
import type { DeciderRefusal } from '../containment/decider-refusal.js';

/** One pending call of an approval batch, as its approver sees it: trusted data, and the proposal's arguments. */
export interface ApprovalBatchItem {
  readonly toolCallId: string;
  readonly capability: string;
  /** Why confirmation is required (the capability's `reason`). */
  readonly reason: string;
  /** The target in the application's words (`requiresConfirmation({ describe })`), or `null`. */
  readonly description: string | null;
  /** Trusted facts about the target (`requiresConfirmation({ subject })`), what the approver's CASL ability is checked against; or `null`. */
  readonly target: JsonObject | null;
  /** The proposal's validated arguments: what an approval binds, and what an edit starts from. */
  readonly arguments: JsonValue | null;
  readonly expiresAt: Date;
  /** Which sources were in context and which argument came from which untrusted source; `null` when not analysed. */
  readonly provenance: ApproverProvenance | null;
}

/** The pending calls of one model turn, asked together (docs/approvals.md "Batch approvals"). No receipt id. */
export interface ApprovalBatch {
  /** A fingerprint of the turn (`approvalBatchId`): carries no tool-call id. */
  readonly batchId: string;
  readonly items: readonly ApprovalBatchItem[];
}

/** What an approver may read of a batch: the batch, or why not (as `ApprovalService.untrustedContent`). */
export type ApprovalBatchRead =
  | ({ readonly allowed: true } & ApprovalBatch)
  | { readonly allowed: false; readonly outcome: 'not_found' | DeciderRefusal };

/**
 * An approver's decision of one item: run it as proposed, never run it, or never run it and propose it again with
 * these arguments instead (a new proposal: the whole pipeline again, and its own receipt if it needs one).
 */
export type ApprovalBatchItemDecision =
  | { readonly toolCallId: string; readonly decision: 'approve' | 'reject' }
  | { readonly toolCallId: string; readonly decision: 'edit'; readonly arguments: JsonObject };

/** What became of one item of a decided batch; `arguments` only for an edit (the new proposal's). */
export interface DecidedBatchItem {
  readonly toolCallId: string;
  readonly capability: string;
  readonly decision: 'approve' | 'reject' | 'edit';
  readonly arguments?: JsonObject;
}

/**
 * What a batch decision did: every item decided at once (`decided`), or nothing changed — no batch of the requester
 * with this id (`not_found`), an item expired (`expired`), the batch decided before or a tool call of it asked again
 * since it was read (`invalid_state`), the approver may not approve an item (`forbidden`) or is, or an item is, held
 * by a kill switch (`contained`).
 */
export type ApprovalBatchOutcome =
  | {
      readonly outcome: 'decided';
      readonly batchId: string;
      readonly items: readonly DecidedBatchItem[];
    }
  | { readonly outcome: 'not_found' | 'expired' | 'invalid_state' | DeciderRefusal };
