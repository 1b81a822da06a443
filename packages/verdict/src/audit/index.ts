export { Severity, isSeverity, isAtLeast } from './severity.js';
export { FindingCode } from './finding-code.js';
export type { WiringFinding } from './wiring-finding.js';
export type { CapabilityWiring } from './capability-wiring.js';
export type { WiringAuditReport } from './wiring-audit-report.js';
export { DEFAULT_LOCAL_TRUST_ZONES, type WiringAuditOptions } from './wiring-audit-options.js';
export { VerdictAgents, type RegisteredAgent } from './verdict-agents.js';
export { WiringAudit } from './wiring-audit.js';
export { VerdictAuditModule } from './verdict-audit.module.js';
