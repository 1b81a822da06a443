/** Where in the pipeline (docs/architecture.md) a decision was made. */
export const Stage = {
  /** Step 0: a kill switch for the capability, the actor or the tenant is engaged (docs/containment.md). */
  Containment: 'containment',
  Proposal: 'proposal',
  Provenance: 'provenance',
  Approval: 'approval',
  /** The review lane: parking, a reviewer's decision, a worker's dispatch and the reviewed-binding check (docs/review-lane.md). */
  Review: 'review',
  TargetRefresh: 'target_refresh',
  Execution: 'execution',
  RateLimit: 'rate_limit',
  /** Step 11a: a spend budget's reservation (docs/budgets.md); a refusal here is `throttle`, like a rate limit's. */
  Budget: 'budget',
  /** Step 0a: a conversation's call ceiling (docs/budgets.md, "Call ceilings"). */
  CallCeiling: 'call_ceiling',
  ExecutionClaim: 'execution_claim',
} as const;

export type Stage = (typeof Stage)[keyof typeof Stage];
