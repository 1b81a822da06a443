import type { ApprovalOptions } from '../approvals/approval-options.interface.js';
import type { AuthorizationOptions } from '../authorization/authorization-options.interface.js';
import type { ActionContextOptions } from '../context/action-context-options.interface.js';
import type { ExecutionClaimOptions } from '../execution-claims/execution-claim-options.interface.js';
import type { TrajectoryOptions } from '../forbidden-states/trajectory-options.interface.js';
import type { ProvenanceStageOptions } from '../provenance/provenance-stage-options.interface.js';
import type { BudgetOptions } from '../budgets/budget-options.interface.js';
import type { RateLimitOptions } from '../rate-limits/rate-limit-options.interface.js';
import type { ReviewOptions } from '../review/review-options.interface.js';
import type { CapabilityDefinition } from './capability-definition.js';

/**
 * What the capability registry reads of the module options: the capabilities, and what registering one checks
 * (a store for each gate it uses, the module's actor key, the abilities discovered methods are bound with).
 */
export interface CapabilityRegistryOptions
  extends
    AuthorizationOptions,
    ActionContextOptions,
    Pick<ApprovalOptions, 'approvals'>,
    ExecutionClaimOptions,
    RateLimitOptions,
    BudgetOptions,
    TrajectoryOptions,
    Pick<ReviewOptions, 'review'>,
    Pick<ProvenanceStageOptions, 'provenance'> {
  /** Capabilities built with `defineCapability`, registered next to discovered `@Capability` methods. */
  readonly capabilities?: readonly CapabilityDefinition[];
}

/** Injects the module's {@link CapabilityRegistryOptions} (provided by the core module). */
export const CAPABILITY_REGISTRY_OPTIONS = Symbol('VerdictCapabilityRegistryOptions');
