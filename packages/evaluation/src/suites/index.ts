export { SecuritySuite } from './security-suite.js';
export { SuiteResult } from './suite-result.js';
export type { SuiteRunOptions, CaseProgress } from './suite-run-options.js';
export type { Reproduction } from './reproduction.js';
export { SecuritySuiteError, DuplicateCaseIdError } from './security-suite.error.js';
