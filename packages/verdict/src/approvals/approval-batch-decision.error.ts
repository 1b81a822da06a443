import { VerdictError } from '../errors/verdict.error.js';

/** Why a batch decision was malformed (see {@link ApprovalBatchDecisionError}). */
export type ApprovalBatchDecisionProblem =
  | 'not_in_batch'
  | 'duplicate_item'
  | 'missing_item'
  | 'unknown_decision'
  | 'arguments_without_edit'
  | 'invalid_arguments';

/**
 * A batch decision that does not decide exactly the batch's pending items (docs/approvals.md "Batch approvals"):
 * an item that is not in the batch, an item named twice or left out, a decision other than `approve`, `reject` or
 * `edit`, arguments on an approval or rejection (only an edit changes arguments), or edited arguments the
 * capability's schema refuses. Bad input, never a decision: nothing was recorded or changed. No id or argument is in
 * the message.
 */
export class ApprovalBatchDecisionError extends VerdictError {
  readonly code = 'VERDICT_INVALID_APPROVAL_BATCH_DECISION';

  constructor(
    readonly problem: ApprovalBatchDecisionProblem,
    capability?: string,
  ) {
    super(
      `The batch decision was refused (${problem}): decide each pending item of the batch exactly once, with approve, reject or edit, and arguments only on an edit. Nothing changed.`,
      { problem, capability },
    );
  }
}
