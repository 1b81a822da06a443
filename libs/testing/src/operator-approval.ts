import type { ApprovalReceipt, ApprovalReceiptStore } from '@verdict/nestjs';

/**
 * Approves the pending receipt `pending` in `store` now, as operator `customer:72`: what the approval
 * concurrency specs and the gate soak do before racing its consumption. Answers the approved receipt; throws,
 * naming `label`, when the store answers anything but `approved`.
 *
 * @example
 * const approved = await approvePending(store, await store.issue(request), 'round 3');
 */
export async function approvePending(
  store: ApprovalReceiptStore,
  pending: Pick<ApprovalReceipt, 'id' | 'toolCallId'>,
  label: string,
): Promise<ApprovalReceipt> {
  const approval = await store.approve({
    receiptId: pending.id,
    toolCallId: pending.toolCallId,
    by: 'customer:72',
    now: new Date(),
  });
  if (approval.outcome !== 'approved')
    throw new Error(`The operator's approval of ${label} answered ${approval.outcome}.`);
  return approval.receipt;
}
