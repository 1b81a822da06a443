/** The states of an approval receipt (docs/approvals.md): `pending → approved | rejected`, `approved → consumed`. */
export const ReceiptStatus = {
  Pending: 'pending',
  Approved: 'approved',
  Rejected: 'rejected',
  Consumed: 'consumed',
} as const;

export type ReceiptStatus = (typeof ReceiptStatus)[keyof typeof ReceiptStatus];
