import type { CapabilityDefinition } from '../capabilities/capability-definition.js';
import { Decision } from '../decisions/decision.js';
import { Stage } from '../decisions/stage.js';
import type { EvidenceTrail } from '../evidence/evidence-trail.js';
import type { Envelope } from '../vocabulary/envelope.js';
import { type TargetOutcome, targetOf } from './target-outcome.js';

/**
 * Step 2: resolve the proposal-stage target, from the envelope (`fromProposal`) or from the context
 * (`fromContext`). `TargetNotResolvable` is a recorded `deny` at `proposal`; any other exception is an
 * application fault: it propagates, is never relabelled as a decision, and nothing executes.
 */
export function resolveProposalTarget(
  definition: CapabilityDefinition,
  envelope: Envelope,
  trail: EvidenceTrail,
): TargetOutcome | Promise<TargetOutcome> {
  return targetOf(
    () => {
      const { resolveTarget, host } = definition;
      return resolveTarget.from === 'proposal'
        ? resolveTarget.resolve(envelope, host)
        : resolveTarget.resolve(envelope.context, host);
    },
    trail,
    (error) => Decision.deny(Stage.Proposal, error.message),
  );
}
