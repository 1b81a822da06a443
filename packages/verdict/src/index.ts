// Module
export { VerdictModule } from './verdict.module.js';
export { MODULE_OPTIONS_TOKEN as VERDICT_MODULE_OPTIONS } from './verdict.module-definition.js';
export { type VerdictModuleOptions, DEFAULT_PUBLIC_MESSAGE } from './verdict-module-options.interface.js';
export type { VerdictOptionsFactory } from './verdict-module-options.checks.js';
export { VerdictService } from './verdict.service.js';
export { PublicMessage } from './public-message.js';
export { publicAnswer, readNotExecutedMessage, type NotExecutedAnswer } from './public-answer.js';

// Capabilities
export { Capability, type CapabilityDecorator } from './capabilities/capability.decorator.js';
export type { CapabilityOptions } from './capabilities/capability-options.interface.js';
export type { CapabilityDefinition, CapabilityExecutor } from './capabilities/capability-definition.js';
export type { ArgumentSchema, ArgumentsOf } from './capabilities/argument-schema.js';
export { defineCapability } from './capabilities/define-capability.js';

// Targets
export {
  ExecutionTargetPolicy,
  TargetStrategy,
  type TargetIdentity,
  type TargetRefresh,
  type TypedExecutionTargetPolicy,
} from './targets/execution-target-policy.js';
export type { InferredFromCapability } from './capabilities/inferred-from-capability.js';
export {
  type TargetResolver,
  type ProposalResolve,
  type ProposalTargetResolver,
  type ContextTargetResolver,
  fromProposal,
  fromContext,
} from './targets/target-resolver.js';

// Authorization and context
export type { AbilityFactory } from './authorization/ability-factory.interface.js';
export { type ActionContext, type AnyActionContext, isActionContext } from './context/action-context.js';
export type { VerdictTypes, VerdictActor, VerdictTenant } from './context/verdict-types.js';
export { ActionContextStore } from './context/action-context.store.js';
export { ActionContextInterceptor } from './context/action-context.interceptor.js';

// Pipeline
export { Decision } from './decisions/decision.js';
export { Disposition } from './decisions/disposition.js';
export {
  ShadowDisposition,
  type RecordedDisposition,
  isShadowDisposition,
  shadowOf,
} from './decisions/shadow-disposition.js';
export { type ShadowSummaryFilter, type ShadowSummaryRow } from './evidence/shadow-summary.js';
export { type ShadowedPolicies, shadowedPolicies } from './shadow/shadowed-policies.js';
export { Stage } from './decisions/stage.js';
export type { Proposal } from './vocabulary/proposal.js';
export type { Envelope } from './vocabulary/envelope.js';
export { MAX_TOOL_CALL_ID_LENGTH } from './capabilities/tool-call-id.js';
export type { AuthorizedAction } from './vocabulary/authorized-action.js';
export type { ExecutionResult } from './vocabulary/execution-result.js';

// Evidence
export { EvidenceRecorder } from './evidence/evidence-recorder.interface.js';
export { decisionRecord, type DecisionRecord, type DecisionFacts } from './evidence/decision-record.js';
export { MAX_REASON_LENGTH, storableReason } from './evidence/storable-reason.js';
export { ToolKind } from './evidence/tool-kind.js';
export { NullEvidenceRecorder } from './evidence/null-evidence-recorder.js';
export { InMemoryEvidenceRecorder } from './evidence/in-memory-evidence-recorder.js';
export { EvidenceQuery } from './evidence/evidence-query.interface.js';
export { InMemoryEvidenceQuery } from './evidence/in-memory-evidence-query.js';
export {
  EVIDENCE_LIST_LIMIT,
  checkedEvidenceFilter,
  type CheckedEvidenceFilter,
  type EvidenceFilter,
} from './evidence/evidence-filter.js';
export { evidenceCursor, type EvidenceCursorKeys } from './evidence/evidence-cursor.js';
export { InvalidEvidenceFilterError } from './errors/invalid-evidence-filter.error.js';
export { TOOL_CALL_SPAN_ATTRIBUTES, VERDICT_TRACER_NAME } from './telemetry/tool-call-span.js';
export { DEFAULT_EVIDENCE_STREAM, evidenceStreamOf } from './evidence/evidence-stream.js';
export { EvidenceLevel } from './evidence/evidence-level.js';
export { EvidenceKind, GENESIS_HASH, chainHash, type ChainLink } from './evidence/chain-link.js';
export {
  ChainProblem,
  ChainVerifier,
  type ChainVerification,
  type ChainWitness,
  type CheckpointHead,
} from './evidence/chain-verification.js';
export {
  CheckpointPurpose,
  checkpointHash,
  checkpointSignatureHolds,
  signCheckpoint,
  type CheckpointAlgorithm,
  type CheckpointKey,
  type EvidenceCheckpoint,
} from './evidence/evidence-checkpoint.js';
export {
  isEvidenceChain,
  type ChainVerifyOptions,
  type EvidenceChain,
  type PruneReport,
  type SealReport,
} from './evidence/evidence-chain.interface.js';

// Execution claims and rate limits
export { atMostOnce, type AtMostOncePolicy, type TypedAtMostOncePolicy } from './execution-claims/at-most-once.js';
export { ExecutionClaimStatus } from './execution-claims/execution-claim-status.js';
export type { ExecutionClaim } from './execution-claims/execution-claim.js';
export {
  ExecutionClaimStore,
  type ClaimAdmission,
  type ClaimRequest,
  type ClaimResolution,
  type ClaimResolutionRequest,
} from './execution-claims/execution-claim-store.interface.js';
export { resolvableFrom, refusedResolution } from './execution-claims/claim-resolution-rules.js';
export { InMemoryExecutionClaimStore } from './execution-claims/in-memory-execution-claim-store.js';
export { ExecutionClaimsService, type ClaimResolutionChoice } from './execution-claims/execution-claims.service.js';
export {
  fixedWindow,
  windowStartOf,
  type FixedWindowPolicy,
  type TypedFixedWindowPolicy,
} from './rate-limits/fixed-window.js';
export {
  RateLimitStore,
  type RateLimitConsumption,
  type RateLimitRequest,
} from './rate-limits/rate-limit-store.interface.js';
export { InMemoryRateLimitStore } from './rate-limits/in-memory-rate-limit-store.js';
export { BudgetScope, type SpendBudget } from './budgets/spend-budget.js';
export {
  BudgetStore,
  type BudgetWindow,
  type BudgetReservation,
  type BudgetReservationAnswer,
  type BudgetReservationRequest,
} from './budgets/budget-store.interface.js';
export type { BudgetOptions } from './budgets/budget-options.interface.js';
export { InMemoryBudgetStore } from './budgets/in-memory-budget-store.js';
export { BUDGET_EXHAUSTED } from './budgets/budget.gate.js';
export { spendBudgetStanding, spendBudgetWindowOf } from './budgets/spend-budget-window.js';
export { type CallCeilings, type CallCeilingOptions, DEFAULT_CALL_CEILING_WINDOW } from './budgets/call-ceilings.js';
export { TOOL_CALL_CEILING, DENIED_PROPOSAL_CEILING } from './budgets/call-ceiling.gate.js';
export {
  ModelBudgetMeasure,
  type ModelBudget,
  type ModelCallBudgets,
  type ModelPrice,
} from './budgets/model-budget.js';
export type { ModelBudgetOptions } from './budgets/model-budget-options.interface.js';
export {
  ModelBudgetGate,
  type ModelBudgetHold,
  type ModelBudgetStanding,
  type ModelCallEstimate,
  type ModelUsage,
} from './budgets/model-budget.gate.js';
export { EvidenceWriteFailed } from './events/evidence-write-failed.event.js';

// Approvals
export {
  requiresConfirmation,
  DEFAULT_CONFIRMATION_TTL_SECONDS,
  DEFAULT_MAX_PENDING_RECEIPTS,
  type ConfirmationPolicy,
  type TypedConfirmationPolicy,
} from './approvals/requires-confirmation.js';
export { receiptPrincipal, type ReceiptPrincipal } from './approvals/receipt-principal.js';
export { ReceiptStatus } from './approvals/receipt-status.js';
export type { ApprovalReceipt } from './approvals/approval-receipt.js';
export type { ApprovalChallenge } from './approvals/approval-challenge.js';
export { ApprovalPhase } from './approvals/approval-phase.js';
export {
  ApprovalReceiptStore,
  type PendingReceiptLimits,
  type ReceiptCheck,
  type ReceiptDecision,
  type ReceiptIssue,
  type ReceiptKey,
  type ReceiptOutcome,
  type ReceiptPruneReport,
  type ReceiptTransition,
  type ReceiptBatchMembership,
  type ReceiptBatchDecision,
  type ReceiptBatchItemDecision,
  type ReceiptBatchTransition,
} from './approvals/approval-receipt-store.interface.js';
export { receiptTombstone } from './approvals/receipt-tombstone.js';
export {
  asksTombstone,
  checkReceipt,
  exceedsPendingLimits,
  pendingLimitFingerprints,
  refusedTransition,
  isExpired,
  refusedBatchDecision,
  decidedInBatch,
} from './approvals/receipt-rules.js';
export { ApprovalBatchService } from './approvals/approval-batch.service.js';
export type {
  ApprovalBatch,
  ApprovalBatchItem,
  ApprovalBatchItemDecision,
  ApprovalBatchOutcome,
  ApprovalBatchRead,
  DecidedBatchItem,
} from './approvals/approval-batch.js';
export { approvalBatchId, type ApprovalBatchTurn } from './approvals/approval-batch-id.js';
export {
  ApprovalBatchDecisionError,
  type ApprovalBatchDecisionProblem,
} from './approvals/approval-batch-decision.error.js';
export { InMemoryApprovalReceiptStore } from './approvals/in-memory-approval-receipt-store.js';
export {
  ApprovalService,
  type ApprovalParties,
  type ApprovalTransition,
  type ApprovalContentRelease,
  type PendingApproval,
} from './approvals/approval.service.js';
export { UnknownApprovalReceiptError } from './approvals/unknown-approval-receipt.error.js';
export { type DeciderRefusal, deciderRefusal } from './containment/decider-refusal.js';
export { approvalSubject } from './approvals/approval-subject.js';
export { challengeOf } from './approvals/approval-challenge.js';
export type { ApprovalEndpointHooks, Approver } from './approvals/approval-endpoint-hooks.interface.js';
export {
  ApprovalEndpointGuard,
  APPROVAL_REQUEST,
  type ApprovalRequest as VerifiedApprovalRequest,
} from './approvals/approval-endpoint.guard.js';
export { ApprovalEndpoint, ApprovalRequest } from './approvals/approval-endpoint.decorator.js';
export type { InvocationOptions } from './pipeline/pipeline-run.js';

// Review lane and deferred execution
export {
  requiresReview,
  DEFAULT_REVIEW_TTL_SECONDS,
  type ReviewPolicy,
  type ReviewerPolicy,
} from './review/requires-review.js';
export { ReviewItemStatus } from './review/review-item-status.js';
export type { ReviewItem } from './review/review-item.js';
export {
  ReviewItemStore,
  type ReviewItemDraft,
  type ReviewItemDecision,
  type ReviewItemTransition,
  type ReviewItemSettlement,
  type PendingReviewQuery,
} from './review/review-item-store.interface.js';
export { isReviewItemExpired, isDecidable, refusedDecision, decidedStatus } from './review/review-item-rules.js';
export { InMemoryReviewItemStore } from './review/in-memory-review-item-store.js';
export { ReviewPhase } from './review/review-phase.js';
export { DEFERRED_CLAIM_POLICY } from './review/review.gate.js';
export type {
  ReviewLaneOptions,
  ReviewRequester,
  WebOnlyReviewLaneOptions,
  WorkingReviewLaneOptions,
} from './review/review-lane-options.interface.js';
export type { PendingReview } from './review/pending-review.js';
export {
  ReviewService,
  type ReviewOutcome,
  type ReviewTransition,
  type ReviewerCheck,
  type ReviewContentRelease,
  type RequeueOutcome,
  type RequeueTransition,
} from './review/review.service.js';
export type { ReviewEndpointHooks } from './review/review-endpoint-hooks.interface.js';
export {
  ReviewEndpointGuard,
  REVIEW_REQUEST,
  type ReviewRequest as VerifiedReviewRequest,
} from './review/review-endpoint.guard.js';
export { ReviewEndpoint, ReviewRequest } from './review/review-endpoint.decorator.js';
export { DeferredQueue, type DeferredEnqueueOptions } from './queue/deferred-queue.interface.js';
export type { DeferredJob, DeferredJobHandler, DeferredJobOutcome } from './queue/deferred-job.js';
export { InProcessDeferredQueue, type InProcessDeferredQueueOptions } from './queue/in-process-deferred-queue.js';
export { DeferredExecutionWorker } from './queue/deferred-execution.worker.js';
export { ReviewedOperationExecuted } from './events/reviewed-operation-executed.event.js';
export { ReviewedOperationRefused } from './events/reviewed-operation-refused.event.js';
export { reviewItemFingerprint } from './review/review-item-fingerprint.js';

// Trajectory
export {
  compileStateModel,
  StateModelError,
  TrajectoryStepError,
  type StateValue,
  type TrajectoryState,
  type Effect,
  type StateModel,
  type StateMachine,
  type TrajectoryStep,
} from './trajectory/index.js';

// Forbidden states (the run-time trajectory gate)
export {
  forbidStates,
  type ForbiddenStatesPolicy,
  type TypedForbiddenStatesPolicy,
  type ForbidStatesOptions,
  type EffectOf,
} from './forbidden-states/forbid-states.js';
export { TrajectoryScope, TrajectoryScopeKind } from './forbidden-states/trajectory-scope.js';
export {
  TrajectoryStore,
  type TrajectoryAdvance,
  type TrajectoryOutcome,
  type TrajectoryRequest,
} from './forbidden-states/trajectory-store.interface.js';
export { InMemoryTrajectoryStore } from './forbidden-states/in-memory-trajectory-store.js';
export { foldEffects } from './forbidden-states/fold-effects.js';
export { MissingTrajectoryError } from './errors/missing-trajectory.error.js';
export { MissingBudgetScopeError } from './errors/missing-budget-scope.error.js';
export { InvalidBudgetAmountError } from './errors/invalid-budget-amount.error.js';
export { InvalidBudgetReservationError } from './errors/invalid-budget-reservation.error.js';
export { InvalidRateLimitRequestError } from './errors/invalid-rate-limit-request.error.js';
export { ModelBudgetExceededError } from './errors/model-budget-exceeded.error.js';
export { UnpricedModelError } from './errors/unpriced-model.error.js';
export { MissingModelBudgetScopeError } from './errors/missing-model-budget-scope.error.js';
export { CallCeilingReachedError } from './errors/call-ceiling-reached.error.js';
export { type PolicyStop, policyStopOf } from './errors/policy-stop.js';
export { RunStoppingError } from './errors/run-stopping.error.js';
export { TrajectoryContentionError } from './errors/trajectory-contention.error.js';
export { UnreleasedContextError } from './errors/unreleased-context.error.js';

// Context release
export { ContextReleaseService } from './context-release/context-release.service.js';
export {
  ContextReleaser,
  type ContextReleaserOptions,
  type ReleaseEventSink,
} from './context-release/context-releaser.js';
export { ReleaseBuilder } from './context-release/release-builder.js';
export {
  type ReleaseRequest,
  type ScanOptions,
  ScanMode,
  DEFAULT_RELEASE_REDACTION,
} from './context-release/release-request.js';
export type { ReleaseResult } from './context-release/release-result.js';
export { ReleaseReason } from './context-release/release-reason.js';
export { Source, SourceKind } from './context-release/source.js';
export { Trust } from './context-release/trust.js';
export { DataClass } from './context-release/data-class.js';
export { Destination } from './context-release/destination.js';
export { ReleasePolicy, type ReleaseAllowance } from './context-release/release-policy.js';
export { ReleasePolicyRegistry } from './context-release/release-policy-registry.js';
export { ReleasePolicies, type ReleasePolicyProvider } from './context-release/release-policies.decorator.js';
export type { ContextTransformer, ReleaseFacts } from './context-release/context-transformer.interface.js';
export { releaseRecord, type ReleaseRecord, type ReleaseDisposition } from './evidence/release-record.js';
export { ContextReleaseDenied } from './events/context-release-denied.event.js';
export { SensitiveDataRedacted } from './events/sensitive-data-redacted.event.js';
export { ContextReleaseRefusedError } from './context-release/context-release-refused.error.js';
export { InvalidReleaseIdentifierError } from './context-release/invalid-release-identifier.error.js';
export { InvalidReleaseRequestError } from './context-release/invalid-release-request.error.js';
export { UnreachableRedactionError } from './context-release/unreachable-redaction.error.js';
export { ReleaseEvidenceWriteFailedError } from './context-release/release-evidence-write-failed.error.js';
export {
  DEFAULT_DETECTORS,
  PlaceholderVault,
  detect,
  redactText,
  emailDetector,
  phoneDetector,
  paymentCardDetector,
  ibanDetector,
  usSsnDetector,
  ipAddressDetector,
  DetectionInputError,
  type PiiDetector,
  type DetectedSpan,
} from './context-release/detectors/index.js';

// Fingerprints
export { fingerprint, fingerprintString } from './fingerprints/fingerprint.js';
export { canonicalJson, assertCanonicalJson, MAX_CANONICAL_DEPTH } from './fingerprints/canonical-json.js';
export type { JsonValue, JsonObject } from './fingerprints/json-value.js';

// Errors
export { VerdictError, type VerdictErrorContext } from './errors/verdict.error.js';
export { VerdictConfigurationError } from './errors/configuration.error.js';
export { TargetNotResolvable } from './errors/target-not-resolvable.error.js';
export { NonCanonicalValueError } from './errors/non-canonical-value.error.js';
export { MissingActionContextError } from './errors/missing-action-context.error.js';
export { EvidenceWriteFailedError } from './errors/evidence-write-failed.error.js';
export { EvidenceChainBrokenError } from './evidence/evidence-chain-broken.error.js';
export { OuterTransactionError } from './errors/outer-transaction.error.js';
export { ClaimResolvedOutOfBandError } from './errors/claim-resolved-out-of-band.error.js';
export { DeferredEnqueueTimeoutError } from './errors/deferred-enqueue-timeout.error.js';
export { DeferredQueueClosedError } from './errors/deferred-queue-closed.error.js';
export { GuardedToolSchemaMismatchError } from './errors/guarded-tool-schema-mismatch.error.js';
export { ApplicationFaultError } from './errors/application-fault.error.js';
export {
  Severity,
  isSeverity,
  isAtLeast,
  FindingCode,
  type WiringFinding,
  type CapabilityWiring,
  type WiringAuditReport,
  DEFAULT_LOCAL_TRUST_ZONES,
  type WiringAuditOptions,
  VerdictAgents,
  type RegisteredAgent,
  WiringAudit,
  VerdictAuditModule,
} from './audit/index.js';

// Security events (docs/evidence.md, "Security events")
export { SecuritySignal } from './decisions/security-signal.js';
export { SecurityEvent, type SecurityEventType } from './events/security-event.js';
export { CapabilityDenied } from './events/capability-denied.event.js';
export { CrossTenantResourceRequested } from './events/cross-tenant-resource-requested.event.js';
export { ResourceSubstitutionDetected } from './events/resource-substitution-detected.event.js';
export { ApprovalReplayDetected } from './events/approval-replay-detected.event.js';
export { ApprovalArgumentsChanged } from './events/approval-arguments-changed.event.js';
export { ExecutionRateExceeded } from './events/execution-rate-exceeded.event.js';
export { SpendBudgetExceeded } from './events/spend-budget-exceeded.event.js';
export { ModelBudgetExceeded } from './events/model-budget-exceeded.event.js';
export { ShadowDecisionRecorded } from './events/shadow-decision-recorded.event.js';
export { DuplicateExecutionRefused } from './events/duplicate-execution-refused.event.js';
export { ForbiddenStateRefused } from './events/forbidden-state-refused.event.js';
export { ToolLoopDetected } from './events/tool-loop-detected.event.js';
export { DEFAULT_TOOL_LOOP_THRESHOLD } from './events/tool-loop-counter.js';
export { ContainmentEngaged } from './events/containment-engaged.event.js';
export {
  type ActorKey,
  defaultActorKey,
  actorKeyText,
  actorFingerprint,
  tenantFingerprintOf,
} from './context/actor-key.js';

// Containment (docs/containment.md)
export { ContainmentScope } from './containment/containment-scope.js';
export type { Containment, ContainmentKey } from './containment/containment.js';
export { ContainmentStore, type ContainmentEngagement } from './containment/containment-store.interface.js';
export { InMemoryContainmentStore } from './containment/in-memory-containment-store.js';
export {
  type ContainmentOptions,
  DEFAULT_CONTAINMENT_CACHE_TTL_MS,
} from './containment/containment-options.interface.js';
export { containmentRule, type ContainmentRule } from './containment/containment-rule.js';
export { ContainmentService, type ContainmentCommand } from './containment/containment.service.js';
// Provenance
export { ProvenanceSource, ProvenanceSourceKind } from './provenance/provenance-source.js';
export { type ProvenanceLabel, describeLabel } from './provenance/provenance-label.js';
export { labelContent, type LabelledContent } from './provenance/labelled-content.js';
export { normalizeText, compactText } from './provenance/normalize-text.js';
export { canonicalForm } from './provenance/canonical-form.js';
export {
  argumentCandidates,
  argumentLeaves,
  candidateFingerprint,
  MIN_CANDIDATE_LENGTH,
  MIN_CANDIDATE_NUMBER,
  type ArgumentCandidate,
  type ArgumentLeaf,
} from './provenance/argument-candidates.js';
export { type PhoneForms, type PhoneReading, phoneForms } from './provenance/phone-forms.js';
export type { InfluenceOptions } from './provenance/influence-options.js';
export { type DerivedFromTrusted, isDerivedFromTrusted } from './provenance/derived-from-trusted.js';
export { type ShadowedArgumentRule, isShadowedArgumentRule } from './provenance/shadowed-argument-rule.js';
export { ProvenanceWindow } from './provenance/provenance-window.js';
export { extractedContent, passagesOf } from './provenance/extraction-passages.js';
export { QuarantineService, type ExtractOptions } from './quarantine/quarantine.service.js';
export { type Plan, type PlanStep, planFingerprint, planSchema, withPlan } from './plans/plan.js';
export type { QuarantineHandle } from './quarantine/quarantine-handle.js';
export type { Extraction } from './quarantine/extraction.js';
export type { QuarantineChatModel, QuarantinePromptMessage } from './quarantine/quarantine-chat-model.js';
export {
  DEFAULT_QUARANTINE_CAPACITY,
  type QuarantineConfiguration,
} from './quarantine/quarantine-options.interface.js';
export { QuarantineExtractionError, QuarantineExtractionFailure } from './errors/quarantine-extraction.error.js';
export { withProvenance, currentProvenanceWindow } from './provenance/provenance-scope.js';
export { analyzeInfluence } from './provenance/analyze-influence.js';
export type { InfluenceReport, ArgumentInfluence, ArgumentDerivation } from './provenance/influence-report.js';
export { provenanceSummary } from './provenance/provenance-summary.js';
export {
  type ApproverProvenance,
  type ApproverSource,
  type ApproverArgument,
  type UntrustedContentReference,
  approverProvenance,
} from './provenance/approver-provenance.js';
export { ProvenanceContents, DEFAULT_PROVENANCE_CONTENTS_CAPACITY } from './provenance/provenance-contents.js';
export { InMemoryProvenanceContentStore } from './provenance/in-memory-provenance-content-store.js';
export type { KeptContent, ProvenanceContentStore } from './provenance/provenance-content-store.interface.js';
export { releaseSourceOf } from './provenance/release-source-of.js';
export {
  type UntrustedContentRequest,
  type UntrustedContentItem,
  type UntrustedContentRelease,
  UntrustedContentStatus,
} from './provenance/untrusted-content-release.js';
export { ProvenanceRule, isProvenanceRule } from './provenance/provenance-rule.js';
export type {
  ProvenancePolicy,
  ProvenanceOptions,
  ArgumentProvenanceRule,
  ContextProvenanceRule,
  TrustedValuesInput,
  TrustedValuesResolver,
} from './provenance/provenance-policy.js';
export {
  type ResultProvenance,
  type ResultLabel,
  type ResultPathLabel,
  ResultFormat,
  isResultFormat,
} from './provenance/result-provenance.js';
export { labelResult } from './provenance/label-result.js';
export { ProvenanceLabels, DEFAULT_PROVENANCE_CAPACITY } from './provenance/provenance-labels.js';
export { ProvenanceLedger } from './provenance/provenance-ledger.interface.js';
export { type ProvenanceRecord, ProvenanceRecordKind, provenanceRecord } from './provenance/provenance-record.js';
export { InMemoryProvenanceLedger } from './provenance/in-memory-provenance-ledger.js';
export { TaintLedger } from './provenance/taint/taint-ledger.interface.js';
export { InMemoryTaintLedger } from './provenance/taint/in-memory-taint-ledger.js';
export { taintTenantKey } from './provenance/taint/taint-tenant-key.js';
export { type TaintOptions, DEFAULT_TAINT_RETENTION_DAYS } from './provenance/taint/taint-options.js';
export { UntrustedInfluenceDetected } from './events/untrusted-influence-detected.event.js';
export { QuarantinedExtraction } from './events/quarantined-extraction.event.js';
export { PlanRecorded } from './events/plan-recorded.event.js';
// The guarded MCP client: pinned tool descriptions and schemas (ADR 0067; pinnedMcpTools in ./langchain).
export { McpPinStatus, type McpToolPin, type ListedMcpTool, pinOf, pinStatus } from './mcp/mcp-tool-pin.js';
export {
  type McpLockfile,
  type McpServerIdentity,
  serverPins,
  type McpPinChange,
  DEFAULT_MCP_LOCKFILE,
  diffLockfile,
  lockfileOf,
  readLockfile,
  writeLockfile,
} from './mcp/mcp-lockfile.js';
export type { McpToolNaming } from './mcp/mcp-tool-naming.js';
export { McpToolRefused } from './events/mcp-tool-refused.event.js';
