import { VerdictError } from '../errors/verdict.error.js';

/**
 * No pending approval receipt has this id: `ApprovalService.untrustedContent` was asked about a receipt the
 * store does not hold (a mistyped or forged id, or one pruned), or one already approved, rejected, superseded,
 * consumed or expired — nothing is left to decide on. Nothing was released. The id is not in the message.
 */
export class UnknownApprovalReceiptError extends VerdictError {
  readonly code = 'VERDICT_UNKNOWN_APPROVAL_RECEIPT';

  constructor() {
    super('No pending approval receipt has this id: nothing was released.');
  }
}
