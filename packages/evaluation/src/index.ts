// Trajectory: forbidden_state_not_reached over recorded traces
export * from './trajectory/index.js';

// The OWASP Agent Security Regression Harness format
export * from './asrh/index.js';
