/** How a proposal reached Verdict: a bound tool, a guarded (migration bridge) tool, `VerdictService.execute`, an MCP client, or a dry-run evaluation. */
export const ToolKind = {
  Bound: 'bound',
  Guarded: 'guarded',
  Service: 'service',
  /** A `tools/call` of an MCP client through `@verdict/nestjs/mcp` (docs/mcp.md): an agent's call, its window unseen. */
  Mcp: 'mcp',
  /** `evaluate()`: a dry run, nothing was executed or spent. */
  Evaluation: 'evaluation',
  /** An operator's reconciliation of an execution claim, or engagement or release of a kill switch (CLI or admin screen). */
  Operator: 'operator',
  /** A containment rule engaged a kill switch on security events (docs/containment.md). */
  ContainmentRule: 'containment_rule',
  /** A human's approval or rejection through `ApprovalService`. */
  Approver: 'approver',
  /** A reviewer's decision through `ReviewService` (docs/review-lane.md). */
  Reviewer: 'reviewer',
  /** A worker's deferred run of an approved review item (`DeferredExecutionWorker`). */
  Deferred: 'deferred',
  /** The LangChain model-input guard, before a tool ran: placeholders restored into its arguments, or the call refused. */
  ModelInputGuard: 'model_input_guard',
} as const;

export type ToolKind = (typeof ToolKind)[keyof typeof ToolKind];
