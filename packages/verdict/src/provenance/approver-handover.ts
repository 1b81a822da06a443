import type { ApproverProvenance } from './approver-provenance.js';
import type { ProvenanceContents } from './provenance-contents.js';
import type { ProvenanceAssessment } from './provenance.stage.js';

/**
 * What an approver or reviewer is shown of a run's provenance, once its call is parked for one (a pending receipt
 * at step 5 or 10, a review item): the untrusted texts of its window are kept in the module's content store for a
 * later release to them (ADR 0033, 0042), never with the receipt or item, never in evidence. `null` when the
 * provenance stage did not run.
 */
export async function handOverToApprover(
  contents: ProvenanceContents,
  assessed: ProvenanceAssessment | undefined,
  clock: () => Date,
): Promise<ApproverProvenance | null> {
  if (assessed?.window?.observed === true) await contents.keep(assessed.window.items, clock());
  return assessed?.approver ?? null;
}
