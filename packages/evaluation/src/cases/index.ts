export { CasePurpose, CASE_PURPOSES } from './case-purpose.js';
export { CaseStatus } from './case-status.js';
export { CaseInput, type CaseInputInit } from './case-input.js';
export type { CaseRunner, CaseRunContext } from './case-runner.js';
export { EvaluationCase } from './evaluation-case.js';
export { EvaluationCaseError } from './evaluation-case.error.js';
export { IDENTIFIER_PATTERN, VERSION_PATTERN, CAPABILITY_NAME_PATTERN } from './evaluation-identifier.js';
