import { fingerprint } from '../fingerprints/fingerprint.js';

/**
 * The longest approval batch id a receipt holds: its `batch_id` column is `varchar(64)` on every engine, the length of
 * the ids {@link approvalBatchId} derives. A longer `approvalBatch` is refused before the run starts, alike everywhere.
 */
export const MAX_APPROVAL_BATCH_ID_LENGTH = 64;

/** What one approval batch is made of: a model turn (its message), in a conversation, and which round of it. */
export interface ApprovalBatchTurn {
  /** The conversation (thread) the turn belongs to; `null` when there is none. */
  readonly conversation: string | null;
  /** The id of the model's message that proposed the calls (unique per turn). */
  readonly message: string;
  /** 0 for the turn's first batch; each batch of edited calls asked again is the next round. Default 0. */
  readonly round?: number;
}

/**
 * The id of the approval batch of one model turn (ADR 0102): `sha256(JCS({conversation, message, round}))`. It is a
 * fingerprint, so evidence and approval screens may carry it: no tool-call id or argument can be read from it.
 *
 * @example const batch = approvalBatchId({ conversation: threadId, message: aiMessage.id });
 */
export function approvalBatchId({ conversation, message, round = 0 }: ApprovalBatchTurn): string {
  return fingerprint({ kind: 'verdict.approval_batch', conversation, message, round });
}
