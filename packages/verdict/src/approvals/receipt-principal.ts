import type { ActionContext } from '../context/action-context.js';
import { fingerprint } from '../fingerprints/fingerprint.js';
import type { JsonValue } from '../fingerprints/json-value.js';

/** Who asked for a confirmed proposal, as Verdict binds it into every receipt (ADR 0015). */
export interface ReceiptPrincipal {
  /** `sha256(JCS({actor: actorKey(actor), tenant}))`: what pending-receipt caps count by. */
  readonly fingerprint: string;
  /** `context.metadata.conversationId` when it is a non-empty string, else `null`. */
  readonly conversation: string | null;
}

/**
 * The principal of `context`: the actor's key (default: the actor object itself, which must be plain
 * JSON — `NonCanonicalValueError` at `$.actor…` otherwise) within its tenant, and the conversation.
 *
 * @example
 * receiptPrincipal({ actor: { customerId: 72 }, tenant: 'acme', metadata: { conversationId: 'c-1' } });
 * // { fingerprint: sha256(JCS({ actor: { customerId: 72 }, tenant: 'acme' })), conversation: 'c-1' }
 */
export function receiptPrincipal(context: ActionContext, actorKey: (actor: any) => JsonValue = (actor) => actor as JsonValue): ReceiptPrincipal {
  const conversation = context.metadata?.conversationId;
  return {
    fingerprint: fingerprint({ actor: actorKey(context.actor), tenant: context.tenant }),
    conversation: typeof conversation === 'string' && conversation !== '' ? conversation : null,
  };
}
