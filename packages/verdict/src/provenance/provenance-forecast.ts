import { randomUUID } from 'node:crypto';
import type { CapabilityDefinition } from '../capabilities/capability-definition.js';
import { buildEnvelope } from '../capabilities/envelope.gate.js';
import type { ActionContext } from '../context/action-context.js';
import type { ActorKey } from '../context/actor-key.js';
import { Decision } from '../decisions/decision.js';
import type { EvidenceRecorder } from '../evidence/evidence-recorder.interface.js';
import { EvidenceTrail } from '../evidence/evidence-trail.js';
import { ToolKind } from '../evidence/tool-kind.js';
import { isThenable } from '../shared/is-thenable.js';
import type { Proposal } from '../vocabulary/proposal.js';
import type { ProvenanceOptions } from './provenance-policy.js';
import { assessProvenance } from './provenance.stage.js';

/** The recorder of a forecast's trail, which is never written: the forecast leaves no evidence. */
const UNWRITTEN: EvidenceRecorder = {
  recordDecision: () => Promise.resolve(),
  recordRelease: () => Promise.resolve(),
};

/** What a provenance forecast reads: the proposal, its capability, who proposed it, and the module's settings. */
export interface ProvenanceForecastInput {
  readonly definition: CapabilityDefinition;
  readonly proposal: Proposal;
  readonly context: ActionContext;
  readonly clock: () => Date;
  readonly options: ProvenanceOptions | undefined;
  readonly actorKey?: ActorKey;
}

/**
 * Whether the provenance stage (step 1a) would ask a human to confirm the proposal of a bound tool of a capability
 * the stage applies to (`provenanceApplies`), in the current provenance window: steps 1 and 1a as a dry run whose
 * records are discarded, which appends nothing to the provenance ledger and raises no event (ADR 0127). Invalid
 * arguments and refusals answer `false`: the run that follows decides them, and records them.
 */
export async function provenanceWouldConfirm(input: ProvenanceForecastInput): Promise<boolean> {
  const { definition, proposal, context, clock, options, actorKey } = input;
  const trail = new EvidenceTrail(UNWRITTEN, clock, randomUUID(), definition.name, ToolKind.Bound, () => {});
  let enveloped = buildEnvelope(definition, proposal, { context, id: trail.correlationId, clock, trail });
  if (isThenable(enveloped)) enveloped = await enveloped;
  if (enveloped instanceof Decision) return false;
  const { envelope } = enveloped;
  const assessed = await assessProvenance({
    definition,
    envelope,
    toolKind: ToolKind.Bound,
    options,
    trail,
    now: envelope.createdAt,
    emit: () => {},
    actorKey,
    dryRun: true,
  });
  return !(assessed instanceof Decision) && assessed.definition.requiresConfirmation !== undefined;
}
