import type { ActionContext } from '../context/action-context.js';
import { Decision } from '../decisions/decision.js';
import { Stage } from '../decisions/stage.js';
import { NonCanonicalValueError } from '../errors/non-canonical-value.error.js';
import type { EvidenceTrail } from '../evidence/evidence-trail.js';
import { fingerprint, fingerprintString } from '../fingerprints/fingerprint.js';
import { isThenable } from '../shared/is-thenable.js';
import type { Envelope } from '../vocabulary/envelope.js';
import type { Proposal } from '../vocabulary/proposal.js';
import type { ArgumentValidation } from './argument-schema.js';
import { validateArguments } from './argument-validator.js';
import type { CapabilityDefinition } from './capability-definition.js';
import { proposedToolCallId } from './tool-call-id.js';

/** Step 1's answer: the envelope, and its arguments' fingerprint (established on the trail for every later record). */
export interface Enveloped {
  readonly envelope: Envelope;
  readonly argumentsFingerprint: string;
}

/** Who the envelope binds the proposal to: the server's context, the run's id (its correlation id) and its clock. */
export interface EnvelopeBinding {
  readonly context: ActionContext;
  readonly id: string;
  readonly clock: () => Date;
  readonly trail: EvidenceTrail;
}

/**
 * Step 1: validate the proposal's arguments against the capability's schema (zod, or a class-validator DTO) and
 * fingerprint them, `sha256(JCS(arguments))`; invalid arguments, or arguments that are not plain JSON, are a
 * recorded `deny` at `proposal`, as is a malformed tool-call id (neither a string nor a finite number, or a string
 * longer than 200 characters; `null` or a blank string is no id, {@link proposedToolCallId}). Then build the
 * envelope: the validated arguments bound to the context, the id and the time. A schema that validates
 * synchronously is answered without a promise (ADR 0053).
 */
export function buildEnvelope(
  definition: CapabilityDefinition,
  proposal: Proposal,
  binding: EnvelopeBinding,
): Enveloped | Decision | Promise<Enveloped | Decision> {
  const validating = validateArguments(definition.arguments, proposal.arguments);
  return isThenable(validating)
    ? envelopeLater(validating, definition, proposal, binding)
    : envelopeOf(validating, definition, proposal, binding);
}

async function envelopeLater(
  validating: PromiseLike<ArgumentValidation<unknown>>,
  definition: CapabilityDefinition,
  proposal: Proposal,
  binding: EnvelopeBinding,
): Promise<Enveloped | Decision> {
  return envelopeOf(await validating, definition, proposal, binding);
}

function envelopeOf(
  validation: ArgumentValidation<unknown>,
  definition: CapabilityDefinition,
  proposal: Proposal,
  { context, id, clock, trail }: EnvelopeBinding,
): Enveloped | Decision {
  const toolCallId = proposedToolCallId(proposal.toolCallId);
  if (!toolCallId.wellFormed) return denied(trail, `malformed tool-call id: ${toolCallId.problem}`);
  if (!validation.valid) return denied(trail, `invalid arguments: ${validation.problems}`);
  let argumentsFingerprint: string;
  try {
    argumentsFingerprint = fingerprint(validation.value);
  } catch (error) {
    if (!(error instanceof NonCanonicalValueError)) throw error;
    return denied(trail, `invalid arguments: ${error.problem} at ${fingerprintString(error.path)}`);
  }
  trail.establish({ argumentsFingerprint });
  const envelope: Envelope = {
    id,
    capability: definition.name,
    arguments: validation.value,
    toolCallId: toolCallId.id,
    context,
    createdAt: clock(),
  };
  return { envelope, argumentsFingerprint };
}

function denied(trail: EvidenceTrail, reason: string): Decision {
  const decision = Decision.deny(Stage.Proposal, reason);
  trail.record(decision);
  return decision;
}
