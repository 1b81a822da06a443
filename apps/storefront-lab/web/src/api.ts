import type {
  ApprovalAnswer,
  BatchDecisionView,
  BatchProposalView,
  BatchReadView,
  BudgetPageView,
  CallView,
  ClaimResolutionView,
  ClaimRow,
  EvaluationRunView,
  ComparisonCaseView,
  LabActor,
  LabRun,
  LabSessionView,
  LiveModeView,
  LiveRunView,
  LiveRuntimeRunView,
  McpListingView,
  PendingApprovalView,
  PayBillLabView,
  ProvenanceRunView,
  RefusalView,
  ReleaseView,
  ReviewAnswer,
  ReviewItemView,
  TrajectoryStepView,
} from '../../src/runs/lab-run.js';

export type * from '../../src/runs/lab-run.js';

/**
 * An answer other than 2xx: the status and the server's message, and — when a guarded endpoint refused the
 * signed-in person — the lab's words for that refusal (an expected outcome, not a fault).
 */
export class LabApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly refusal: RefusalView | null = null,
  ) {
    super(message);
  }
}

async function send<T>(method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(path, {
    method,
    headers: {
      accept: 'application/json',
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
  });
  const text = await response.text();
  let parsed: unknown = null;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    parsed = text;
  }
  if (!response.ok) {
    const { message, refusal } = (parsed ?? {}) as { message?: unknown; refusal?: RefusalView };
    throw new LabApiError(
      response.status,
      `${response.status}: ${Array.isArray(message) ? message.join('; ') : String(message ?? (text || response.statusText))}`,
      refusal ?? null,
    );
  }
  return parsed as T;
}

/** One item's decision in the batch-approval panel: approve, reject, or edit to these arguments. */
export type BatchDecisionInput =
  | { toolCallId: string; decision: 'approve' | 'reject' }
  | { toolCallId: string; decision: 'edit'; arguments: { orderId: number; amountCents: number } };

/** The lab's typed API client: every state change is a POST, every GET only reads. */
export const labApi = {
  session: () => send<LabSessionView>('GET', '/api/session'),
  reset: () => send<{ reset: true }>('POST', '/api/session/reset'),
  crossCustomer: (body: { actor: LabActor; request: string; orderId: number }) =>
    send<ComparisonCaseView>('POST', '/api/labs/cross-customer/runs', body),
  whyVerdict: (which: string) => send<ComparisonCaseView>('POST', `/api/labs/why-verdict/${which}/runs`),
  mcpListings: (users: readonly [string, string]) =>
    send<McpListingView[]>('POST', '/api/labs/mcp/listings', { users }),
  budget: (body: { actor: LabActor; orderId: number; count: number }) =>
    send<LabRun>('POST', '/api/labs/budget/runs', body),
  budgets: (actor: LabActor) =>
    send<BudgetPageView>(
      'GET',
      `/api/labs/budgets?customerId=${actor.customerId}&tenant=${encodeURIComponent(actor.tenant)}`,
    ),
  goodwillCredits: (body: { actor: LabActor; orderId: number; amountCents: number; count: number }) =>
    send<BudgetPageView>('POST', '/api/labs/budgets/credits', body),
  askAssistant: (body: { actor: LabActor; question: string; count: number }) =>
    send<BudgetPageView>('POST', '/api/labs/budgets/assistant', body),
  duplicateDelivery: (body: { actor: LabActor; orderId: number }) =>
    send<LabRun>('POST', '/api/labs/duplicate-delivery/runs', body),
  release: (body: { actor: LabActor }) =>
    send<{ actor: LabActor; source: string; only: string[]; releases: ReleaseView[] }>(
      'POST',
      '/api/labs/release/runs',
      body,
    ),
  forbiddenStates: (body: { actor: LabActor; externalHost: string; recipient: string }) =>
    send<TrajectoryStepView[]>('POST', '/api/labs/forbidden-states/runs', body),
  proposeRefund: (body: { actor: LabActor; orderId: number; amountCents: number }) =>
    send<CallView>('POST', '/api/labs/confirmation/proposals', body),
  resumeRefund: (toolCallId: string, body: { orderId: number; amountCents: number }) =>
    send<CallView>('POST', `/api/labs/confirmation/proposals/${encodeURIComponent(toolCallId)}/resume`, body),
  inbox: () => send<PendingApprovalView[]>('GET', '/api/approvals'),
  decide: (toolCallId: string, verb: 'approve' | 'reject', approverId: string) =>
    send<ApprovalAnswer>('POST', `/api/approvals/${encodeURIComponent(toolCallId)}/${verb}`, undefined, {
      'x-lab-approver': approverId,
    }),
  proposeBatch: (body: { actor: LabActor; refunds: Array<{ orderId: number; amountCents: number }> }) =>
    send<BatchProposalView>('POST', '/api/labs/batch-approval/proposals', body),
  readBatch: (batchId: string, approverId: string) =>
    send<BatchReadView>('GET', `/api/approvals/batches/${encodeURIComponent(batchId)}`, undefined, {
      'x-lab-approver': approverId,
    }),
  decideBatch: (batchId: string, decisions: BatchDecisionInput[], approverId: string) =>
    send<BatchDecisionView>(
      'POST',
      `/api/approvals/batches/${encodeURIComponent(batchId)}/decisions`,
      { decisions },
      { 'x-lab-approver': approverId },
    ),
  payBill: (body: { actor: LabActor; file: string; quarantinedModelMisled: boolean }) =>
    send<PayBillLabView>('POST', '/api/labs/quarantine/runs', body),
  provenance: (body: { actor: LabActor; orderId: number; amountCents: number; review: string; ownIban: string }) =>
    send<ProvenanceRunView>('POST', '/api/labs/provenance/runs', body),
  proposeStaffRefund: (body: { actor: LabActor; orderId: number; amountCents: number }) =>
    send<CallView>('POST', '/api/labs/review-lane/proposals', body),
  reviews: () => send<ReviewItemView[]>('GET', '/api/reviews'),
  review: (itemId: string, verb: 'approve' | 'reject', reviewerId: string) =>
    send<ReviewAnswer>('POST', `/api/reviews/${encodeURIComponent(itemId)}/${verb}`, undefined, {
      'x-lab-reviewer': reviewerId,
    }),
  evaluation: () => send<EvaluationRunView>('POST', '/api/labs/evaluation/runs'),
  sendLabel: (body: { actor: LabActor; orderId: number }) => send<CallView>('POST', '/api/labs/claims/labels', body),
  resolveClaim: (
    claimId: string,
    body: { resolution: 'completed' | 'retryable'; by: string; reason: string; force: boolean },
  ) => send<ClaimResolutionView>('POST', `/api/claims/${encodeURIComponent(claimId)}/resolve`, body),
  claims: () => send<ClaimRow[]>('GET', '/api/claims'),
  liveMode: () => send<LiveModeView>('GET', '/api/labs/live'),
  liveCrossCustomer: (body: { actor: LabActor; request: string }) =>
    send<LiveRunView>('POST', '/api/labs/live/cross-customer/runs', body),
  liveRuntimeCrossCustomer: (body: { actor: LabActor; request: string; runtime: string }) =>
    send<LiveRuntimeRunView>('POST', '/api/labs/live/cross-customer/runtime-runs', body),
  liveInjectedReview: (body: { actor: LabActor; orderId: number; amountCents: number; review: string }) =>
    send<LiveRunView>('POST', '/api/labs/live/injected-review/runs', body),
};
