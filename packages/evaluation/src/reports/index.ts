export { EvaluationReport, EVALUATION_REPORT_SCHEMA, type ReportedSuite } from './evaluation-report.js';
export {
  HarnessPhase,
  type CaseReport,
  type ReportedInput,
  type ReportedObservation,
  type ReportedToolCall,
  type AssertionResult,
  type HarnessError,
} from './case-report.js';
export { scoresOf, type Score, type Scores } from './score.js';
export { summarizeObservation } from './observation-summary.js';
export { EvaluationReportError } from './evaluation-report.error.js';
export { REPORT_SCHEMA_FILE, reportJsonSchema } from './report-schema.js';
