/** The states of an approval receipt (DESIGN.md §7): `pending → approved | rejected`, `approved → consumed`. */
export const ReceiptStatus = {
  Pending: 'pending',
  Approved: 'approved',
  Rejected: 'rejected',
  Consumed: 'consumed',
} as const;

export type ReceiptStatus = (typeof ReceiptStatus)[keyof typeof ReceiptStatus];
