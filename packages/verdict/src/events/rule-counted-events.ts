import { ApprovalArgumentsChanged } from './approval-arguments-changed.event.js';
import { ApprovalReplayDetected } from './approval-replay-detected.event.js';
import { CapabilityDenied } from './capability-denied.event.js';
import { CrossTenantResourceRequested } from './cross-tenant-resource-requested.event.js';
import { DuplicateExecutionRefused } from './duplicate-execution-refused.event.js';
import { ExecutionRateExceeded } from './execution-rate-exceeded.event.js';
import { ForbiddenStateRefused } from './forbidden-state-refused.event.js';
import { ResourceSubstitutionDetected } from './resource-substitution-detected.event.js';
import type { SecurityEventType } from './security-event.js';
import { ShadowDecisionRecorded } from './shadow-decision-recorded.event.js';
import { SpendBudgetExceeded } from './spend-budget-exceeded.event.js';
import { ToolLoopDetected } from './tool-loop-detected.event.js';

/**
 * The security events a run raises, which `SecurityEventEmitter` hands to the containment rules: what a rule's `on`
 * may name. `ContainmentEngaged` is raised by an engagement, never by a run, and Verdict's other events
 * (`ModelBudgetExceeded`, `McpToolRefused`, …) are no security events: a rule on one would never count, so it would
 * never contain. An event the emitter starts raising for a run is added here, or no rule can name it.
 */
export const RULE_COUNTED_EVENTS: ReadonlySet<SecurityEventType> = new Set<SecurityEventType>([
  CapabilityDenied,
  CrossTenantResourceRequested,
  ResourceSubstitutionDetected,
  ApprovalReplayDetected,
  ApprovalArgumentsChanged,
  ExecutionRateExceeded,
  SpendBudgetExceeded,
  DuplicateExecutionRefused,
  ForbiddenStateRefused,
  ToolLoopDetected,
  ShadowDecisionRecorded,
]);
