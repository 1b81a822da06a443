import type { CapabilityRegistry } from '../capabilities/capability-registry.js';
import type { ActionContext } from '../context/action-context.js';
import { conversationIdOf } from '../context/conversation-id.js';
import type { JsonValue } from '../fingerprints/json-value.js';
import { isMissingKey } from '../shared/is-missing-key.js';
import type { ApprovalReceipt } from './approval-receipt.js';
import { receiptPrincipal } from './receipt-principal.js';
import { sameAsker } from './receipt-rules.js';

/**
 * Fails a lookup whose requester has a malformed conversation id (`conversationIdOf`) before any receipt is read, so
 * the answer never depends on whether one is pending (docs/approvals.md "Who asked is always bound"): a wiring fault,
 * never "nothing pending". An absent requester is left to the caller (the deprecated unscoped lookup allows one).
 * @throws VerdictConfigurationError for a conversation id that is present but not a non-blank string or a finite number.
 */
export function checkRequesterConversation(requester: ActionContext | undefined): void {
  if (requester !== undefined) conversationIdOf(requester);
}

/**
 * Whether `requester` is who asked for `receipt`, in the conversation it was asked in (ADR 0015): the principal
 * (actor key within tenant, by the receipt capability's `actorKey`, else the module's) and conversation
 * fingerprints match. Unknown capabilities and receipts without fingerprints match nobody; so does a requester
 * for whom the capability's `actorKey` names nobody (a colliding receipt of another capability is not theirs).
 * @throws VerdictConfigurationError, NonCanonicalValueError for a requester context the proposal would refuse too
 * (a malformed conversation id, an actor that is not plain JSON).
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
  // A capability without its own policy is confirmed for provenance with the module's actorKey (ADR 0025).
  const actorKey = definition.requiresConfirmation?.actorKey ?? moduleActorKey ?? ((actor: any): JsonValue => actor);
  const key = actorKey(requester.actor);
  if (isMissingKey(key)) return false;
  // Any other fault of the requester's context (a malformed conversation id, an actor that is not JSON) is a wiring
  // fault, thrown as it is: never "nothing pending". The key is asked once.
  const principal = receiptPrincipal(requester, () => key, receipt.capability);
  return sameAsker(receipt, {
    principalFingerprint: principal.fingerprint,
    conversationFingerprint: principal.conversationFingerprint,
  });
}
