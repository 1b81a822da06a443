// Cases, observations and assertions
export * from './cases/index.js';
export * from './observations/index.js';
export * from './assertions/index.js';

// Suites, reports and baselines
export * from './suites/index.js';
export * from './reports/index.js';
export * from './baselines/index.js';

// Trajectory: forbidden_state_not_reached over recorded traces and observations
export * from './trajectory/index.js';
export {
  forbiddenStateNotReached,
  UnreliableTrajectoryError,
} from './trajectory/forbidden-state-not-reached.assertion.js';

// The OWASP Agent Security Regression Harness format
export * from './asrh/index.js';

// Comparison formats of `verdict-eval compare`
export * from './comparison-formats/index.js';
