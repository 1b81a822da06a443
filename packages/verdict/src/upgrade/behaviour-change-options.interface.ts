import type { ApprovalOptions } from '../approvals/approval-options.interface.js';
import type { ProvenanceStageOptions } from '../provenance/provenance-stage-options.interface.js';

/** The module options whose absence keeps a behaviour change (ADR 0049, 0070). */
export interface BehaviourChangeOptions
  extends Pick<ApprovalOptions, 'approvalEndpoint'>, Pick<ProvenanceStageOptions, 'provenance'> {}

/** Injects the module's {@link BehaviourChangeOptions} (provided by the core module). */
export const BEHAVIOUR_CHANGE_OPTIONS = Symbol('VerdictBehaviourChangeOptions');
