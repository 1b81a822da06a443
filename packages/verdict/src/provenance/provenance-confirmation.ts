import type { ConfirmationPolicy } from '../approvals/requires-confirmation.js';
import type { CapabilityDefinition } from '../capabilities/capability-definition.js';
import type { ActorKey } from '../context/actor-key.js';

/**
 * The confirmation a proposal needs because of its provenance. A capability that declares
 * `requiresConfirmation` keeps its own policy (binding, TTL, caps), its reason followed by the summary. One
 * that does not is confirmed with a receipt bound to what Verdict always binds — capability, execution-target
 * policy, the complete arguments, actor (by the module's `actorKey`), tenant and conversation — and to no resource
 * state (ADR 0025); its subject and description are the provenance policy's, from the resolved target (ADR 0114).
 */
export function provenanceConfirmation(
  definition: CapabilityDefinition,
  reason: string,
  actorKey?: ActorKey,
): ConfirmationPolicy {
  const declared = definition.requiresConfirmation;
  if (declared !== undefined) return Object.freeze({ ...declared, reason: `${declared.reason} ${reason}` });
  const { subject, describe } = definition.provenance ?? {};
  return Object.freeze({
    bind: () => ({}),
    reason,
    ...(subject === undefined ? {} : { subject }),
    ...(describe === undefined ? {} : { describe }),
    ...(actorKey === undefined ? {} : { actorKey }),
  });
}
