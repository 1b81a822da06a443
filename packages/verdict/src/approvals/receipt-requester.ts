import type { CapabilityDefinition } from '../capabilities/capability-definition.js';
import type { CapabilityRegistry } from '../capabilities/capability-registry.js';
import type { ActionContext } from '../context/action-context.js';
import { type ActorKey, defaultActorKey } from '../context/actor-key.js';
import { conversationIdOf } from '../context/conversation-id.js';
import { isMissingKey } from '../shared/is-missing-key.js';
import type { ApprovalReceipt } from './approval-receipt.js';
import { type ReceiptPrincipal, receiptPrincipal } from './receipt-principal.js';
import { sameAsker } from './receipt-rules.js';

/**
 * Fails a lookup whose requester context the proposal would refuse before any receipt is read, so the answer never
 * depends on whether one is pending, or whose (docs/approvals.md "Who asked is always bound"): a wiring fault, never
 * "nothing pending". The conversation id is checked (`conversationIdOf`), and the actor under every actor key a
 * receipt of a registered capability binds (`receiptActorKey`): a key that is not plain JSON throws, as it would for
 * that capability's receipt. A key that names nobody (`null`, `undefined`, blank) is not a fault here: such a
 * requester asked for none of those receipts. An absent requester is left to the caller (the deprecated unscoped
 * lookup allows one).
 * @throws VerdictConfigurationError for a conversation id that is present but not a non-blank string or a finite number.
 * @throws NonCanonicalValueError for an actor whose key is not plain JSON (the actor itself, when no `actorKey` is set).
 */
export function checkRequester(
  requester: ActionContext | undefined,
  registry: CapabilityRegistry,
  moduleActorKey: ActorKey | undefined,
): void {
  if (requester === undefined) return;
  conversationIdOf(requester);
  const checked = new Set<ActorKey>();
  for (const definition of registry.all()) {
    const actorKey = receiptActorKey(definition, moduleActorKey);
    if (checked.has(actorKey)) continue;
    checked.add(actorKey);
    principalOf(requester, actorKey, definition.name);
  }
}

/**
 * Whether `requester` is who asked for `receipt`, in the conversation it was asked in (ADR 0015): the principal
 * (actor key within tenant, by the receipt capability's `actorKey`, else the module's) and conversation
 * fingerprints match. Unknown capabilities and receipts without fingerprints match nobody; so does a requester
 * for whom the capability's `actorKey` names nobody (a colliding receipt of another capability is not theirs).
 * @throws VerdictConfigurationError, NonCanonicalValueError for a requester context the proposal would refuse too
 * (a malformed conversation id, an actor that is not plain JSON): lookups check it first (`checkRequester`).
 */
export function askedBy(
  receipt: ApprovalReceipt,
  requester: ActionContext,
  registry: CapabilityRegistry,
  moduleActorKey: ActorKey | undefined,
): boolean {
  const definition = registry.find(receipt.capability);
  if (definition === undefined || receipt.principalFingerprint == null || receipt.conversationFingerprint == null)
    return false;
  const principal = principalOf(requester, receiptActorKey(definition, moduleActorKey), receipt.capability);
  if (principal === undefined) return false;
  return sameAsker(receipt, {
    principalFingerprint: principal.fingerprint,
    conversationFingerprint: principal.conversationFingerprint,
  });
}

/**
 * The actor key a receipt of `definition` binds who asked with: its confirmation's `actorKey`, else the module's (a
 * capability without a policy of its own is confirmed for provenance with it, ADR 0025), else the actor itself.
 */
function receiptActorKey(definition: CapabilityDefinition, moduleActorKey: ActorKey | undefined): ActorKey {
  return definition.requiresConfirmation?.actorKey ?? moduleActorKey ?? defaultActorKey;
}

/**
 * The requester's principal under `actorKey`, `undefined` when the key names nobody. Any other fault of the
 * requester's context (a malformed conversation id, an actor that is not JSON) is a wiring fault, thrown as it is.
 * The key is asked once.
 */
function principalOf(requester: ActionContext, actorKey: ActorKey, capability: string): ReceiptPrincipal | undefined {
  const key = actorKey(requester.actor);
  if (isMissingKey(key)) return undefined;
  return receiptPrincipal(requester, () => key, capability);
}
