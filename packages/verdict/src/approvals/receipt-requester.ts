import type { CapabilityDefinition } from '../capabilities/capability-definition.js';
import type { CapabilityRegistry } from '../capabilities/capability-registry.js';
import { type ActionContext, isTenant } from '../context/action-context.js';
import { type ActorKey, checkedActorKey, defaultActorKey, moduleActorKey } from '../context/actor-key.js';
import { conversationIdOf } from '../context/conversation-id.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { provenanceCanConfirm } from '../provenance/provenance-can-confirm.js';
import { isMissingKey } from '../shared/is-missing-key.js';
import type { ApprovalOptions } from './approval-options.interface.js';
import type { ApprovalReceipt } from './approval-receipt.js';
import { type ReceiptPrincipal, receiptPrincipal } from './receipt-principal.js';
import { sameAsker } from './receipt-rules.js';

/** What the requester's checks read of the module options: its `actorKey`, and provenance's strict mode. */
export type ReceiptRequesterOptions = Pick<ApprovalOptions, 'actorKey' | 'provenance'>;

/**
 * Fails a lookup whose requester context the proposal would refuse before any receipt is read, so the answer never
 * depends on whether one is pending, or whose (docs/approvals.md "Who asked is always bound"): a wiring fault, never
 * "nothing pending". Called once per lookup. The conversation id is checked (`conversationIdOf`), and the actor under
 * the actor key of each registered capability that can ask for confirmation (`asksForConfirmation`;
 * `receiptActorKey`): a key that is not plain JSON, or that throws, fails as that capability's proposal would. A
 * capability that never asks is not checked: its proposals take such an actor (evidence attributes it to nobody), and
 * no receipt of it is matched (`askedBy`). A key that names nobody (`null`, `undefined`, blank) is not a fault here:
 * such a requester asked for none of those receipts. An absent requester (`undefined`) is left to the caller (the
 * deprecated unscoped lookup allows one); `null`, or an object without a tenant (a non-blank string or `null`,
 * `isTenant`), is a wiring fault, never an absent requester. The actor is left to the key rule above.
 * @throws VerdictConfigurationError for a requester that is `null`, not an object or without a tenant, or a
 * conversation id that is present but not a non-blank string or a finite number.
 * @throws NonCanonicalValueError for an actor whose key is not plain JSON (the actor itself, when no `actorKey` is set).
 */
export function checkRequester(
  requester: ActionContext | undefined,
  registry: CapabilityRegistry,
  options: ReceiptRequesterOptions,
): void {
  if (requester === undefined) return;
  // Never taken for an absent requester (the unscoped lookup), and the same whether or not anything is pending.
  if (typeof requester !== 'object' || requester === null || !isTenant(requester.tenant))
    throw new VerdictConfigurationError(
      "The receipt lookup's requester is not an action context: pass the context the tool call was proposed in ({ actor, tenant, metadata }, with a tenant that is a non-blank string or null).",
    );
  conversationIdOf(requester);
  for (const [actorKey, capability] of confirmingActorKeys(registry, options))
    principalOf(requester, actorKey, capability);
}

/**
 * Whether `requester` is who asked for `receipt`, in the conversation it was asked in (ADR 0015): the principal
 * (actor key within tenant, by the receipt capability's `actorKey`, else the module's) and conversation
 * fingerprints match. Receipts without fingerprints, of an unknown capability, or of one that no longer asks for
 * confirmation (`asksForConfirmation`: its confirmation removed since) match nobody, so that only the keys
 * `checkRequester` checked are asked; so does a requester for whom the capability's `actorKey` names nobody (a
 * colliding receipt of another capability is not theirs).
 * @throws VerdictConfigurationError, NonCanonicalValueError for a requester context the proposal would refuse too
 * (a malformed conversation id, an actor that is not plain JSON): lookups check it first (`checkRequester`).
 */
export function askedBy(
  receipt: ApprovalReceipt,
  requester: ActionContext,
  registry: CapabilityRegistry,
  options: ReceiptRequesterOptions,
): boolean {
  const definition = registry.find(receipt.capability);
  if (
    definition === undefined ||
    !asksForConfirmation(definition, options) ||
    receipt.principalFingerprint == null ||
    receipt.conversationFingerprint == null
  )
    return false;
  const principal = principalOf(requester, receiptActorKey(definition, moduleActorKey(options)), receipt.capability);
  if (principal === undefined) return false;
  return sameAsker(receipt, {
    principalFingerprint: principal.fingerprint,
    conversationFingerprint: principal.conversationFingerprint,
  });
}

/**
 * The principal fingerprints of `context` under every actor key a receipt can bind who asked with (ADR 0184): the key
 * of each registered capability that asks for confirmation (`receiptActorKey`), each fingerprint once. What the
 * pending-receipt cap of a tool call counts (`PendingReceiptLimits.askerFingerprints`), as `askedBy` matches each
 * receipt under its own capability's key. A key whose answer names nobody (`null`, `undefined`, blank) or is not
 * plain JSON for this actor is left out: no receipt under it can have been issued to this actor, whose proposal would
 * fail first. Verdict's own checks of the answer decide that (`checkedActorKey`, ADR 0208). Asked when a receipt is
 * issued, after the proposal's own key was.
 * @throws whatever a confirming capability's `actorKey` throws itself for this actor (a failed lookup, a `TypeError`):
 *   an application fault, thrown as it is, as that capability's proposals and the receipt lookups throw it
 *   (`checkRequester`). Left out, the key's receipts of the tool call went uncounted and a second one was issued.
 */
export function askerFingerprints(
  context: ActionContext,
  registry: CapabilityRegistry,
  options: ReceiptRequesterOptions,
): string[] {
  // Checked first (the proposal did too), so that below only the key's answer can be refused.
  conversationIdOf(context);
  const fingerprints = new Set<string>();
  for (const [actorKey, capability] of confirmingActorKeys(registry, options)) {
    const checked = checkedActorKey(
      context.actor,
      actorKey,
      (key) => receiptPrincipal(context, () => key, capability).fingerprint,
    );
    if (checked.stable) fingerprints.add(checked.value);
  }
  return [...fingerprints];
}

/**
 * The actor key of each registered capability that can ask for confirmation (`asksForConfirmation`;
 * `receiptActorKey`), each once, with the first capability that binds with it (named by a fault of the key).
 */
function confirmingActorKeys(registry: CapabilityRegistry, options: ReceiptRequesterOptions): Map<ActorKey, string> {
  const moduleKey = moduleActorKey(options);
  const keys = new Map<ActorKey, string>();
  for (const definition of registry.all()) {
    if (!asksForConfirmation(definition, options)) continue;
    const actorKey = receiptActorKey(definition, moduleKey);
    if (!keys.has(actorKey)) keys.set(actorKey, definition.name);
  }
  return keys;
}

/**
 * Whether a proposal of `definition` can ask for confirmation, and so bind who asks to a receipt: it requires
 * confirmation (in shadow mode too: it issues none then, but validates one under the same key), or its provenance
 * policy can ask for it (`provenanceCanConfirm`). Any other capability's proposals never read a receipt.
 */
function asksForConfirmation(definition: CapabilityDefinition, options: ReceiptRequesterOptions): boolean {
  return definition.requiresConfirmation !== undefined || provenanceCanConfirm(definition, options.provenance);
}

/**
 * The actor key a receipt of `definition` binds who asked with: its confirmation's `actorKey`, else the module's (a
 * capability without a policy of its own is confirmed for provenance with it, ADR 0025), else the actor itself.
 */
function receiptActorKey(definition: CapabilityDefinition, moduleKey: ActorKey | undefined): ActorKey {
  return definition.requiresConfirmation?.actorKey ?? moduleKey ?? defaultActorKey;
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
