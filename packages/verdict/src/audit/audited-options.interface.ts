import type { BudgetOptions } from '../budgets/budget-options.interface.js';
import type { ApprovalOptions } from '../approvals/approval-options.interface.js';
import type { KillSwitchOptions } from '../containment/kill-switch-options.interface.js';
import type { EvidenceOptions } from '../evidence/evidence-options.interface.js';
import type { ExecutionClaimOptions } from '../execution-claims/execution-claim-options.interface.js';
import type { TrajectoryOptions } from '../forbidden-states/trajectory-options.interface.js';
import type { ProvenanceStageOptions } from '../provenance/provenance-stage-options.interface.js';
import type { BehaviourChangeOptions } from '../upgrade/behaviour-change-options.interface.js';
import type { ReviewOptions } from '../review/review-options.interface.js';

/** What the wiring audit reads of the module options: every store, the approval and review hooks and the behaviour changes. */
export interface AuditedOptions
  extends
    EvidenceOptions,
    ApprovalOptions,
    ExecutionClaimOptions,
    BudgetOptions,
    TrajectoryOptions,
    KillSwitchOptions,
    ProvenanceStageOptions,
    BehaviourChangeOptions,
    Pick<ReviewOptions, 'review' | 'reviewEndpoint'> {}

/** Injects the module's {@link AuditedOptions} (provided by the core module). */
export const AUDITED_OPTIONS = Symbol('VerdictAuditedOptions');
