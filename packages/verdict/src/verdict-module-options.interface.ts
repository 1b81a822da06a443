import type { ApprovalOptions } from './approvals/approval-options.interface.js';
import type { AuthorizationOptions } from './authorization/authorization-options.interface.js';
import type { CapabilityRegistryOptions } from './capabilities/capability-registry-options.interface.js';
import type { KillSwitchOptions } from './containment/kill-switch-options.interface.js';
import type { ActionContextOptions } from './context/action-context-options.interface.js';
import type { ContextReleaseOptions } from './context-release/context-release-options.interface.js';
import type { SecurityEventOptions } from './events/security-event-options.interface.js';
import type { EvidenceOptions } from './evidence/evidence-options.interface.js';
import type { ExecutionClaimOptions } from './execution-claims/execution-claim-options.interface.js';
import type { TrajectoryOptions } from './forbidden-states/trajectory-options.interface.js';
import type { ProvenanceStageOptions } from './provenance/provenance-stage-options.interface.js';
import type { BudgetOptions } from './budgets/budget-options.interface.js';
import type { CallCeilingOptions } from './budgets/call-ceilings.js';
import type { ModelBudgetOptions } from './budgets/model-budget-options.interface.js';
import type { QuarantineOptions } from './quarantine/quarantine-options.interface.js';
import type { RateLimitOptions } from './rate-limits/rate-limit-options.interface.js';
import type { ReviewOptions } from './review/review-options.interface.js';
import type { ClockOptions } from './shared/clock-options.interface.js';

/** The fixed text the model and end users receive when a proposal is not executed. */
export const DEFAULT_PUBLIC_MESSAGE = 'This action was not performed.';

/**
 * Options of `VerdictModule.forRoot` / `forRootAsync`: the composition of every mechanism's own options (each
 * declared in its folder, ADR 0071). `abilityFactory` is required; every other option is optional.
 */
export interface VerdictModuleOptions
  extends
    AuthorizationOptions,
    ActionContextOptions,
    ClockOptions,
    EvidenceOptions,
    CapabilityRegistryOptions,
    ApprovalOptions,
    ReviewOptions,
    ExecutionClaimOptions,
    RateLimitOptions,
    BudgetOptions,
    CallCeilingOptions,
    ModelBudgetOptions,
    TrajectoryOptions,
    ContextReleaseOptions,
    KillSwitchOptions,
    SecurityEventOptions,
    ProvenanceStageOptions,
    QuarantineOptions {
  /**
   * What the model is told when a proposal is not executed: a non-blank string (else a boot error). Default:
   * {@link DEFAULT_PUBLIC_MESSAGE}. Internal reasons never reach the model.
   */
  readonly publicMessage?: string;
}
