/**
 * The states of an approval receipt (docs/approvals.md): `pending → approved | rejected | superseded`,
 * `approved → consumed`. `superseded`: its approver edited the call in a batch; the edited call is a new proposal
 * with a receipt of its own (ADR 0124).
 */
export const ReceiptStatus = {
  Pending: 'pending',
  Approved: 'approved',
  Rejected: 'rejected',
  Superseded: 'superseded',
  Consumed: 'consumed',
} as const;

export type ReceiptStatus = (typeof ReceiptStatus)[keyof typeof ReceiptStatus];
