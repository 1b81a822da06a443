export { describeApprovalReceiptStoreContract } from './approval-receipt-store.contract.js';
export type { ApprovalReceiptStoreHarness } from './approval-receipt-store.contract.js';
export { describeContainmentStoreContract } from './containment-store.contract.js';
export type { ContainmentStoreHarness } from './containment-store.contract.js';
export { describeEvidenceRecorderContract } from './evidence-recorder.contract.js';
export type { EvidenceRecorderHarness } from './evidence-recorder.contract.js';
export { describeEvidenceQueryContract } from './evidence-query.contract.js';
export type { EvidenceQueryHarness } from './evidence-query.contract.js';
export { describeExecutionClaimStoreContract } from './execution-claim-store.contract.js';
export type { ExecutionClaimStoreHarness } from './execution-claim-store.contract.js';
export { describeRateLimitStoreContract } from './rate-limit-store.contract.js';
export type { RateLimitStoreHarness } from './rate-limit-store.contract.js';
export { describeBudgetStoreContract } from './budget-store.contract.js';
export type { BudgetStoreHarness } from './budget-store.contract.js';
export { describeTrajectoryStoreContract } from './trajectory-store.contract.js';
export type { TrajectoryStoreHarness } from './trajectory-store.contract.js';
export { describeProvenanceLedgerContract } from './provenance-ledger.contract.js';
export type { ProvenanceLedgerHarness } from './provenance-ledger.contract.js';
export { describeTaintLedgerContract } from './taint-ledger.contract.js';
export type { TaintLedgerHarness } from './taint-ledger.contract.js';
export { describeProvenanceContentStoreContract } from './provenance-content-store.contract.js';
export type { ProvenanceContentStoreHarness } from './provenance-content-store.contract.js';
export { describeReviewItemStoreContract } from './review-item-store.contract.js';
export type { ReviewItemStoreHarness } from './review-item-store.contract.js';
export { describeDeferredQueueContract } from './deferred-queue.contract.js';
export type { DeferredQueueHarness } from './deferred-queue.contract.js';
export type { ContractRunner, ContractSuiteOptions, ContractTestFn } from './contract-runner.js';
export { createVerdictTestingModule } from './verdict-testing-module.js';
export type {
  ActingAs,
  VerdictTestingModule,
  VerdictTestingModuleOptions,
  VerdictTestingStores,
} from './verdict-testing-module.js';
export {
  ASSISTANT_INSTRUCTION_PREFIX,
  assistantInstruction,
  readAssistantInstructions,
} from './assistant-instruction.js';
export type { AssistantInstruction } from './assistant-instruction.js';
export { Respelling, isRespelling, respell, respellArguments } from './respelling.js';
