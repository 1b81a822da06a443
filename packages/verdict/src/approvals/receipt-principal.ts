import type { ActionContext } from '../context/action-context.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { fingerprint } from '../fingerprints/fingerprint.js';
import type { JsonValue } from '../fingerprints/json-value.js';
import { conversationIdOf } from '../context/conversation-id.js';
import { isMissingKey } from '../shared/is-missing-key.js';

/** Who asked for a confirmed proposal, and where, as Verdict binds it into every receipt (ADR 0015). */
export interface ReceiptPrincipal {
  /** `sha256(JCS({actor: actorKey(actor), tenant}))`: what pending-receipt caps count by. Stored with the receipt. */
  readonly fingerprint: string;
  /** `context.metadata.conversationId` (a string or a finite number), `null` when the context has none. */
  readonly conversation: string | number | null;
  /** `sha256(JCS(conversation))`, `null` included: stored with the receipt; lookups match on it. */
  readonly conversationFingerprint: string;
}

/**
 * The principal of `context`: the actor's key (default: the actor object itself, which must be plain
 * JSON — `NonCanonicalValueError` at `$.actor…` otherwise) within its tenant, and the conversation.
 * Wiring faults, never a weaker binding (`VerdictConfigurationError`): an actor key of `null`,
 * `undefined` or a blank string (empty or only whitespace) (it would make every actor one principal), and a `conversationId` that is present
 * (not `undefined` or `null`) but not a non-empty string or a finite number.
 *
 * @example
 * receiptPrincipal({ actor: { customerId: 72 }, tenant: 'acme', metadata: { conversationId: 'c-1' } });
 * // { fingerprint: sha256(JCS({ actor: { customerId: 72 }, tenant: 'acme' })), conversation: 'c-1', conversationFingerprint: sha256('"c-1"') }
 */
export function receiptPrincipal(
  context: ActionContext,
  actorKey: (actor: any) => JsonValue = (actor) => actor as JsonValue,
  capability?: string,
): ReceiptPrincipal {
  const facts = capability === undefined ? {} : { capability };
  const actor = actorKey(context.actor);
  if (isMissingKey(actor)) {
    throw new VerdictConfigurationError(
      `${capability === undefined ? 'A confirmed capability' : `Capability "${capability}"`} binds receipts to the actor, but its actorKey (default: the actor itself) gave ${describeMissing(actor)}: return the actor's stable id, or every actor would share one approval.`,
      facts,
    );
  }
  const conversation = conversationIdOf(context, capability);
  return {
    fingerprint: fingerprint({ actor, tenant: context.tenant }),
    conversation,
    conversationFingerprint: fingerprint(conversation),
  };
}

function describeMissing(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}
