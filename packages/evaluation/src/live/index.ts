export { clopperPearson, type BinomialInterval } from './clopper-pearson.js';
export {
  LiveChangeKind,
  LiveComparisonError,
  compareLiveReports,
  describeLiveChange,
  renderLiveComparison,
  type LiveChange,
  type LiveComparison,
} from './compare-live-reports.js';
export {
  LiveCase,
  type LiveAttackDefinition,
  type LiveCaseDefinition,
  type LiveTrialRun,
  type LiveTrialSandbox,
  type PausedToolCall,
  type ProposedToolCall,
} from './live-case.js';
export {
  LIVE_ENV,
  LiveProvider,
  LiveProviderKind,
  type ReportedProvider,
  type SamplingSettings,
} from './live-provider.js';
export {
  LIVE_REPORT_SCHEMA,
  LiveReport,
  LiveReportError,
  LiveStop,
  type LiveBudget,
  type LivePlan,
} from './live-report.js';
export {
  LIVE_CONFIDENCE,
  LiveStatus,
  type ArmStatistics,
  type LiveCaseMeta,
  type LiveCaseStatistics,
  type LiveThresholds,
  type PackStatistics,
  type PairedControl,
} from './live-statistics.js';
export { LiveSuiteError } from './live-suite.error.js';
export { LiveSuite } from './live-suite.js';
export { ProviderErrorClass, providerErrorClassOf } from './provider-error-class.js';
export { runLiveSuite, type LiveRunOptions, type TrialProgress } from './run-live-suite.js';
export { LiveArm, TrialOutcome } from './trial-outcome.js';
export type { TrialRecord, TrialToolCall } from './trial-record.js';
