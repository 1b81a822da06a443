import type { ApprovalOptions } from '../approvals/approval-options.interface.js';
import type { ClockOptions } from '../shared/clock-options.interface.js';
import type { ProvenanceOptions } from './provenance-policy.js';

/** What the provenance stage reads of the module options: its own, the approval store it confirms with, the clock. */
export interface ProvenanceStageOptions extends Pick<ApprovalOptions, 'approvals'>, ClockOptions {
  /**
   * Provenance (docs/provenance.md): `strict` makes confirmation the default for consequential capabilities
   * under untrusted influence; `ledger` keeps labels, fingerprints and derivation edges. Default: not strict, no ledger.
   */
  readonly provenance?: ProvenanceOptions;
}

/** Injects the module's {@link ProvenanceStageOptions} (provided by the core module). */
export const PROVENANCE_STAGE_OPTIONS = Symbol('VerdictProvenanceStageOptions');
