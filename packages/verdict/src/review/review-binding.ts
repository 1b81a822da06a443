import { randomBytes } from 'node:crypto';
import type { CapabilityDefinition } from '../capabilities/capability-definition.js';
import { receiptPrincipal } from '../approvals/receipt-principal.js';
import { fingerprint } from '../fingerprints/fingerprint.js';
import type { JsonObject, JsonValue } from '../fingerprints/json-value.js';
import type { Envelope } from '../vocabulary/envelope.js';
import type { ReviewLaneOptions } from './review-lane-options.interface.js';

/**
 * The actor key of the review lane for `definition`: its `requiresReview.actorKey`, else the lane's
 * `actorKey` (the module's when the lane names none, `configuredReviewLane`), else the actor object itself (plain
 * JSON): only `enqueue` of a capability without `requiresReview` gets there, a `requiresReview` capability with no
 * key anywhere is a boot error.
 */
export function reviewActorKey(
  definition: CapabilityDefinition,
  lane: Pick<ReviewLaneOptions, 'actorKey'> | undefined,
): (actor: unknown) => JsonValue {
  const key = definition.requiresReview?.actorKey ?? lane?.actorKey;
  return key === undefined ? (actor) => actor as JsonValue : (actor) => key.call(undefined, actor as never);
}

/** `rvw_` + 256 random bits, base64url. */
export function newReviewItemId(): string {
  return `rvw_${randomBytes(32).toString('base64url')}`;
}

/** What a review item is bound to, computed the same way when parking and when the worker re-runs it. */
export interface ReviewBinding {
  readonly bindingFingerprint: string;
  readonly principalFingerprint: string;
  readonly requesterKey: JsonValue;
}

/**
 * The binding of `envelope` against `target`, by the receipt rules (ADR 0015): capability, execution-target
 * policy, the complete arguments, the policy's `bind` (or, for a direct enqueue, the target's identity; when
 * `enqueue` consumed the call's approval (`approvedWhenQueued`), also that mark and the facts its
 * `requiresConfirmation` binds: the worker's run meets the state the human approved, and knows it was approved) and
 * the principal (actor key within tenant). The conversation is not bound: the run happens outside it.
 */
export function reviewBinding(
  definition: CapabilityDefinition,
  envelope: Envelope,
  target: unknown,
  lane: Pick<ReviewLaneOptions, 'actorKey'> | undefined,
  approvedWhenQueued = false,
): ReviewBinding {
  const policy = definition.requiresReview;
  const actorKey = reviewActorKey(definition, lane);
  const principal = receiptPrincipal({ ...envelope.context, metadata: {} }, actorKey, definition.name);
  const binding: JsonObject =
    policy === undefined
      ? enqueuedBinding(definition, envelope, target, approvedWhenQueued)
      : policy.bind(envelope, target);
  return {
    bindingFingerprint: fingerprint({
      capability: definition.name,
      execution_target_policy: definition.executionTarget.name,
      arguments: envelope.arguments,
      binding,
      principal: principal.fingerprint,
    }),
    principalFingerprint: principal.fingerprint,
    requesterKey: actorKey(envelope.context.actor),
  };
}

/**
 * What a directly enqueued item binds: the target's identity and, when its approval was consumed as it was queued,
 * the facts the confirmation policy binds (the state the approved receipt was bound to).
 */
function enqueuedBinding(
  definition: CapabilityDefinition,
  envelope: Envelope,
  target: unknown,
  approvedWhenQueued: boolean,
): JsonObject {
  const identity = definition.executionTarget.identity(target, envelope.context) as JsonValue;
  if (!approvedWhenQueued) return { identity };
  // A confirmation only a provenance policy asked for binds nothing, and a worker's run (no window) has none.
  return { identity, approvedWhenQueued, confirmed: definition.requiresConfirmation?.bind(envelope, target) ?? {} };
}
