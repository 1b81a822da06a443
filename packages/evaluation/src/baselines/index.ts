export { EvaluationBaseline } from './evaluation-baseline.js';
export { EvaluationBaselineError } from './evaluation-baseline.error.js';
export { ChangeKind, isBlocking } from './change-kind.js';
export { changeKindOf } from './change-kind-of.js';
export { compareReports } from './compare-reports.js';
export type { Change, CaseSnapshot } from './change.js';
export type { Comparison } from './comparison.js';
