import type { CapabilityRegistry } from '../capabilities/capability-registry.js';
import type { ActionContext } from '../context/action-context.js';
import type { JsonValue } from '../fingerprints/json-value.js';
import { VerdictError } from '../errors/verdict.error.js';
import type { ApprovalReceipt } from './approval-receipt.js';
import { receiptPrincipal } from './receipt-principal.js';

/**
 * Whether `requester` is who asked for `receipt`, in the conversation it was asked in (ADR 0015): the principal
 * (actor key within tenant, by the receipt capability's `actorKey`, else the module's) and conversation
 * fingerprints match. Unknown capabilities and receipts without fingerprints match nobody; so does a requester
 * for whom the capability's `actorKey` names nobody (a colliding receipt of another capability is not theirs).
 */
export function askedBy(
  receipt: ApprovalReceipt,
  requester: ActionContext,
  registry: CapabilityRegistry,
  moduleActorKey: ((actor: any) => JsonValue) | undefined,
): boolean {
  const definition = registry.find(receipt.capability);
  if (definition === undefined || receipt.principalFingerprint == null || receipt.conversationFingerprint == null)
    return false;
  let principal;
  try {
    // A capability without its own policy is confirmed for provenance with the module's actorKey (ADR 0025).
    const actorKey = definition.requiresConfirmation?.actorKey ?? moduleActorKey;
    principal = receiptPrincipal(requester, actorKey, receipt.capability);
  } catch (error) {
    if (error instanceof VerdictError) return false;
    throw error;
  }
  return (
    principal.fingerprint === receipt.principalFingerprint &&
    principal.conversationFingerprint === receipt.conversationFingerprint
  );
}
