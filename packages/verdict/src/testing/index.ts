export { describeApprovalReceiptStoreContract } from './approval-receipt-store.contract.js';
export type { ApprovalReceiptStoreHarness } from './approval-receipt-store.contract.js';
export { describeEvidenceRecorderContract } from './evidence-recorder.contract.js';
export type { EvidenceRecorderHarness } from './evidence-recorder.contract.js';
export { describeEvidenceQueryContract } from './evidence-query.contract.js';
export type { EvidenceQueryHarness } from './evidence-query.contract.js';
export { describeExecutionClaimStoreContract } from './execution-claim-store.contract.js';
export type { ExecutionClaimStoreHarness } from './execution-claim-store.contract.js';
export { describeRateLimitStoreContract } from './rate-limit-store.contract.js';
export type { RateLimitStoreHarness } from './rate-limit-store.contract.js';
export { describeTrajectoryStoreContract } from './trajectory-store.contract.js';
export type { TrajectoryStoreHarness } from './trajectory-store.contract.js';
export type { ContractRunner, ContractSuiteOptions, ContractTestFn } from './contract-runner.js';
export * from './scripted-chat-model.js';
export { createVerdictTestingModule } from './verdict-testing-module.js';
export type {
  ActingAs,
  VerdictTestingModule,
  VerdictTestingModuleOptions,
  VerdictTestingStores,
} from './verdict-testing-module.js';
