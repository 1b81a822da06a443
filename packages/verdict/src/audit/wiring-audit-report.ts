import type { CapabilityWiring } from './capability-wiring.js';
import type { WiringFinding } from './wiring-finding.js';

/** What `WiringAudit.run` found: the inventory, the findings (most serious first) and what it did not check, and why. */
export interface WiringAuditReport {
  readonly capabilities: readonly CapabilityWiring[];
  /**
   * Registered release routes, `kind:name->connection@zone [classes; trust]`; a route whose trust levels release
   * different classes has one group per set of levels, `[pii,internal; trusted | internal; untrusted]`.
   */
  readonly releaseRoutes: readonly string[];
  /** Registered agents and their tool names. */
  readonly agents: readonly { readonly name: string; readonly tools: readonly string[] }[];
  readonly findings: readonly WiringFinding[];
  /** Checks deliberately not made, with the reason. */
  readonly notes: readonly string[];
}
