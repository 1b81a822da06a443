export { databaseEngines, dropDataSource, openDataSource, remigrate, withDataSource } from './database-matrix.js';
export { storeBackends } from './store-backends.js';
export type { OpenedBackend } from './store-backends.js';
export { columnCollations, onOwnRunner, tableDefaultCollations } from './column-collations.js';
export { withDefaultIsolation } from './default-isolation.js';
export { testRedisUrl, uniqueRedisPrefix } from './redis-matrix.js';
export { countingStatements } from './statement-counter.js';
export { seedTrafficShapedEvidence } from './evidence-seed.js';
export { markPending, seedLinkedStream, streamDecision, streamRelease } from './evidence-stream.js';
export { approvePending } from './operator-approval.js';
export type { StatementCounter } from './statement-counter.js';
export type { DatabaseEngine, DatabaseEngineName, TestDataSourceOptions } from './database-matrix.js';
export { WorkerPool } from './processes/worker-pool.js';
export { WorkerKeeper } from './processes/worker-keeper.js';
export { SourceTimeInTheFutureError, StaleBuildError, assertCurrentBuild } from './processes/current-build.js';
export { compiledScript, runNodeScript, testingKitFixture } from './processes/node-script.js';
export type { NodeScriptOptions, NodeScriptResult } from './processes/node-script.js';
export type { WorkerExit, WorkerReplyMessage, WorkerRequestMessage } from './processes/worker-pool.js';
export { serveParent } from './processes/worker-runtime.js';
export type { WorkerHandler } from './processes/worker-runtime.js';
export { startGateWorkers } from './processes/gate-workers.js';
export { startReviewLaneWorkers } from './processes/review-lane-workers.js';
export type * from './processes/review-lane-protocol.js';
export { externalCopiesModel } from './processes/external-copies.model.js';
export type { GateWorkers } from './processes/gate-workers.js';
export { startContainmentWorkers } from './processes/containment-workers.js';
export { startModelBudgetWorkers } from './processes/model-budget-workers.js';
export type { ModelBudgetWorkers } from './processes/model-budget-workers.js';
export type { ContainmentWorkers } from './processes/containment-workers.js';
export type { PingReply, SwitchReply, SwitchRequest } from './processes/containment-protocol.js';
export { startEvidenceWorkers } from './processes/evidence-workers.js';
export type { EvidenceWorkers } from './processes/evidence-workers.js';
export type {
  AdmitReply,
  AdmitRequest,
  BatchOutcome,
  BatchReply,
  BatchRequest,
  ContentsWriteReply,
  ContentsWriteRequest,
  GateRequest,
  ConsumeReply,
  ReserveBudgetReply,
  ReserveBudgetRequest,
  ConsumeRequest,
  ReceiptConsumeReply,
  ReceiptConsumeRequest,
  ReceiptDecisionReply,
  ReceiptDecisionRequest,
  ReceiptBatchDecisionReply,
  ReceiptBatchDecisionRequest,
  ReceiptIssueReply,
  ReceiptIssueRequest,
  TrajectoryAdvanceReply,
  TrajectoryAdvanceRequest,
} from './processes/gate-protocol.js';
export {
  expectKilledMidStatement,
  killWhenBlocked,
  whenBlocked,
  onceReconnected,
  openSingleConnection,
} from './processes/database-backends.js';
export type { BlockedSession, KilledMidStatementSteps, SingleConnection } from './processes/database-backends.js';
export { refundFixture } from './review-lane/refund-fixture.js';
export type { RefundActor, RefundArguments, RefundLedger, RefundOrder } from './review-lane/refund-fixture.js';
export * from './scripted-chat-model.js';
export { asrhFixturesDirectory } from './asrh-fixtures.js';
export * from './chat-completions/index.js';
export { type AgentsTurn, ScriptedAgentsModel } from './scripted-agents-model.js';
