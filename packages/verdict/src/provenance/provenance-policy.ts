import type { ProvenanceLedger } from './provenance-ledger.interface.js';
import type { ProvenanceContentStore } from './provenance-content-store.interface.js';
import type { ProvenanceRule } from './provenance-rule.js';
import type { ResultProvenance } from './result-provenance.js';

/** The rules an argument may take: `trusted_only` refuses a value from untrusted content. */
export type ArgumentProvenanceRule = ProvenanceRule;

/**
 * A capability's provenance policy (docs/provenance.md): what its results are, and what the provenance stage
 * (step 1a) does when untrusted content influenced one of its proposals. The most severe finding decides:
 * `deny`/`trusted_only` > `require_confirmation` > `allow`.
 *
 * @example
 * provenance: { untrustedContext: 'require_confirmation', arguments: { recipient: 'trusted_only' } }
 */
export interface ProvenancePolicy {
  /** What this capability's results are, whole or per path. Default: untrusted. */
  readonly results?: ResultProvenance;
  /**
   * When untrusted content was in the context window that proposed the call (sound and coarse). Default:
   * `allow`, or `require_confirmation` for a consequential capability under the module's strict mode.
   */
  readonly untrustedContext?: Exclude<ProvenanceRule, 'trusted_only'>;
  /**
   * Per argument path (dot paths with `*`, covering their subtree): when the argument's value occurs in
   * untrusted content and in no trusted content. Paths not named: `allow`, or `require_confirmation` for a
   * consequential capability under strict mode.
   */
  readonly arguments?: Readonly<Record<string, ArgumentProvenanceRule>>;
  /** Shown to the approver before the provenance summary when this policy asks for confirmation. */
  readonly reason?: string;
}

/** Module-wide provenance options (`VerdictModuleOptions.provenance`). */
export interface ProvenanceOptions {
  /**
   * Strict mode: every consequential capability (`consequential`, default its `mutates`) under untrusted
   * influence needs confirmation, unless its policy says otherwise. Default: `false`.
   */
  readonly strict?: boolean;
  /** Where provenance records go (labels, fingerprints, derivation edges). Default: none kept. */
  readonly ledger?: ProvenanceLedger;
  /**
   * Where the untrusted texts of parked calls' windows are kept for approvers and reviewers (ADR 0042); share one
   * (`TypeOrmProvenanceContentStore`) when another process may decide the call. Default: this process's memory.
   */
  readonly contents?: ProvenanceContentStore;
}
