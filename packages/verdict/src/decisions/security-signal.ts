/**
 * The security events a decision can raise beyond its stage's default (docs/evidence.md, "Security
 * events"): set by the gate that knows, read by the pipeline's event emitter. A deny without a signal
 * raises `CapabilityDenied`; a throttle at `rate_limit` raises `ExecutionRateExceeded`; a deny at
 * `execution_claim` raises `DuplicateExecutionRefused`.
 */
export const SecuritySignal = {
  /** CASL refused a target the application's `tenantOf` hook places in another tenant. */
  CrossTenantResourceRequested: 'cross_tenant_resource_requested',
  /** The execution target's identity differs from the proposal target's. */
  ResourceSubstitutionDetected: 'resource_substitution_detected',
  /** An approval that was already consumed was presented again. */
  ApprovalReplayDetected: 'approval_replay_detected',
  /** A receipt exists for this tool call, but the arguments or the bound state differ from what was approved. */
  ApprovalArgumentsChanged: 'approval_arguments_changed',
  /** The call would have driven its trajectory into a forbidden state. */
  ForbiddenStateRefused: 'forbidden_state_refused',
} as const;

export type SecuritySignal = (typeof SecuritySignal)[keyof typeof SecuritySignal];
