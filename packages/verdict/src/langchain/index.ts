export { VerdictLangChainModule } from './verdict-langchain.module.js';
export { VerdictTools, type BoundToolOptions } from './verdict-tools.js';
export { VerdictBoundTool } from './verdict-bound-tool.js';
export { VerdictGuardedTool } from './verdict-guarded-tool.js';
export { notExecutedMessage, readNotExecutedMessage, type NotExecutedAnswer } from './not-executed-message.js';
export { applicationFaultMiddleware } from './application-fault.middleware.js';
export {
  approveToolCall,
  rejectToolCall,
  isExplicitApproval,
  type ApprovalInterrupt,
  type ToolCallApproval,
} from './approval-resume.js';
export { ModelInputGuard, type ModelInputGuardOptions, type ToolResultRoute } from './model-input-guard.js';
export { ModelInputGuards } from './model-input-guards.js';
export { type PlaceholderRestoration, RestorationRefusal } from './placeholder-restoration.js';
export { RELEASE_SEAL_KEY } from './release-seal.js';
export {
  ProvenanceTracker,
  type ProvenanceTrackerOptions,
  type ProvenanceTrackerWiring,
} from './provenance-tracker.js';
export { ProvenanceTrackers } from './provenance-trackers.js';
export { LabelledRetriever } from './labelled-retriever.js';
export { QuarantinedReaders } from './quarantined-readers.js';
export { QuarantinedReading, type QuarantinedReadingOptions } from './quarantined-reading.js';
export { QUARANTINE_SOURCE } from './quarantine-extract-tool.js';
export { PlanModes } from './plan-modes.js';
export { ApprovalBatches } from './approval-batches.js';
export { resumeApprovalBatch, type ApprovalBatchInterrupt, type ApprovalBatchResume } from './approval-batch-resume.js';
export { ModelBudgets } from './model-budgets.js';
export { ModelCallBudget, type ModelCallBudgetOptions } from './model-call-budget.js';
export { estimateInputTokens, type ModelInput } from './model-input-tokens.js';
export { PlanMode, type PlanChangeInterrupt, type PlanEventSink, type PlanModeOptions } from './plan-mode.js';
export {
  mcpToolPin,
  pinnedMcpTools,
  type McpEventSink,
  type McpToolRoute,
  type PinnedMcpTools,
  type PinnedMcpToolsOptions,
  type RefusedMcpTool,
} from './pinned-mcp-tools.js';
