import type { LabelledContent } from './labelled-content.js';
import { ProvenanceSource, ProvenanceSourceKind } from './provenance-source.js';

/** A sub-agent's input, written by the agent whose tool call started it: the sub-agent's principal's message. */
export const CALLER = ProvenanceSource.agent('caller');
/** The source of what Verdict itself writes into the window for quarantined reading: handles, failures. */
export const QUARANTINE_SOURCE = ProvenanceSource.application('quarantine');
/** The source of Verdict's answers to the plan tool. */
export const PLAN_SOURCE = ProvenanceSource.application('plan');

/**
 * Whether a trusted item of a window can vouch for a value, for the positive rule and for the negative rule's "in no
 * trusted content": what a principal typed, what the application wrote, a trusted result, the trusted set. A model's
 * own answers cannot, trusted as they are when their window was: a value the model states — computed, or taken
 * from a tool description no label covers — is not thereby derived from trusted content. Nor can the texts Verdict
 * writes into the window (quarantined reading's handles, plan mode's answers), which repeat what the model or a
 * source named. A sub-agent's input (`agent:caller`) is its principal's message and vouches as one.
 */
export function vouchesForValues(item: LabelledContent): boolean {
  const { kind, name } = item.label.source;
  if (kind === ProvenanceSourceKind.Agent) return name === CALLER.name;
  return kind !== ProvenanceSourceKind.Application || (name !== QUARANTINE_SOURCE.name && name !== PLAN_SOURCE.name);
}
