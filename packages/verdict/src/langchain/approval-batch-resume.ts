import type {
  ApprovalBatch,
  ApprovalBatchItem,
  ApprovalBatchOutcome,
  DecidedBatchItem,
} from '../approvals/approval-batch.js';

/**
 * The one interrupt an agent run raises when a model turn's calls need approval (docs/approvals.md "Batch
 * approvals"): the batch id and each pending item — trusted data and the validated arguments, no receipt id.
 * Decide it with `ApprovalBatchService.decide` and resume with {@link resumeApprovalBatch}.
 */
export interface ApprovalBatchInterrupt {
  readonly type: 'verdict.approval_batch_required';
  readonly batchId: string;
  /** The batch's pending items, as `ApprovalBatchService.pending` reads them; the expiry as an ISO string. */
  readonly items: ReadonlyArray<Omit<ApprovalBatchItem, 'expiresAt'> & { readonly expiresAt: string }>;
}

/** The resume value of a decided batch: what `ApprovalBatchService.decide` decided, item by item. */
export interface ApprovalBatchResume {
  readonly type: 'verdict.approval_batch';
  readonly batchId: string;
  readonly items: readonly DecidedBatchItem[];
}

/**
 * Resume value of a decided batch: `agent.invoke(new Command({ resume: resumeApprovalBatch(outcome) }), config)`.
 * Approved items run (each once, if its receipt is approved); rejected ones answer the model with the public
 * refusal; edited ones are proposed again with the edited arguments, through the whole pipeline.
 *
 * @throws TypeError when `outcome` is not `decided`: a batch that was not decided resumes nothing.
 */
export function resumeApprovalBatch(outcome: ApprovalBatchOutcome): ApprovalBatchResume {
  if (outcome.outcome !== 'decided')
    throw new TypeError(`A batch that was not decided (${outcome.outcome}) has nothing to resume with.`);
  return { type: 'verdict.approval_batch', batchId: outcome.batchId, items: outcome.items };
}

/** The decided items of `resume` when it is the resume value of batch `batchId`; `null` otherwise. */
export function batchResumeItems(resume: unknown, batchId: string): readonly DecidedBatchItem[] | null {
  if (typeof resume !== 'object' || resume === null) return null;
  const value = resume as Partial<ApprovalBatchResume>;
  if (value.type !== 'verdict.approval_batch' || value.batchId !== batchId || !Array.isArray(value.items)) return null;
  return value.items;
}

/** The interrupt value for a pending batch. */
export function approvalBatchInterrupt(batch: ApprovalBatch): ApprovalBatchInterrupt {
  return {
    type: 'verdict.approval_batch_required',
    batchId: batch.batchId,
    items: batch.items.map((item) => ({ ...item, expiresAt: item.expiresAt.toISOString() })),
  };
}
