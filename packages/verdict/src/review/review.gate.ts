import type { CapabilityDefinition } from '../capabilities/capability-definition.js';
import type { GateRequest } from '../capabilities/gate-request.js';
import { conversationIdOf } from '../context/conversation-id.js';
import { Decision } from '../decisions/decision.js';
import { Disposition } from '../decisions/disposition.js';
import { Stage } from '../decisions/stage.js';
import type { EvidenceTrail } from '../evidence/evidence-trail.js';
import { storableDescription } from '../evidence/storable-reason.js';
import { atMostOnce, type AtMostOncePolicy } from '../execution-claims/at-most-once.js';
import type { JsonObject, JsonValue } from '../fingerprints/json-value.js';
import { subjectFacts } from '../approvals/subject-facts.js';
import type { Envelope } from '../vocabulary/envelope.js';
import type { ApproverProvenance } from '../provenance/approver-provenance.js';
import { newReviewItemId, reviewBinding } from './review-binding.js';
import { ReviewPhase } from './review-phase.js';
import type { ReviewLaneOptions } from './review-lane-options.interface.js';
import type { ReviewItem } from './review-item.js';
import { isReviewItemExpired } from './review-item-rules.js';
import { ReviewItemStatus } from './review-item-status.js';
import { DEFAULT_REVIEW_TTL_SECONDS } from './requires-review.js';
import { reviewItemFingerprint } from './review-item-fingerprint.js';
import { assertReviewItemTenant } from './review-item-tenant.js';
import { claimBindingFingerprint } from '../execution-claims/execution-claim.gate.js';
import { validateArguments } from '../capabilities/argument-validator.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { fingerprint } from '../fingerprints/fingerprint.js';
import { containedActorFingerprint } from '../containment/contained-actor.js';
import type { KillSwitchOptions } from '../containment/kill-switch-options.interface.js';

/** A pipeline run on a worker: the approved item it re-runs. */
export interface DeferredRun {
  readonly item: ReviewItem;
}

/** The claim policy every deferred run passes: one execution per review item. */
export const DEFERRED_CLAIM_POLICY = 'verdict.deferred';

/**
 * The review item's own claim, admitted by every deferred run (before the capability's `atMostOnce`, which
 * still refuses a second item for the same operation): a job retry, a duplicate job or a restarted worker meets
 * a claim that is already taken, even when the capability's key reads state the first execution changed.
 */
export function deferredItemClaim({ item }: DeferredRun): AtMostOncePolicy {
  return atMostOnce({ name: DEFERRED_CLAIM_POLICY, key: () => ({ item: item.id }) });
}

/** The binding of the item's own claim, as step 13 admits it (its key reads neither proposal nor target). */
export function deferredItemClaimFingerprint(item: ReviewItem): string {
  return claimBindingFingerprint(item.capability, deferredItemClaim({ item }), undefined as never, undefined);
}

/** What parking needs: the review lane, the proposal and its target. */
export interface ParkRequest {
  readonly lane: ReviewLaneOptions;
  readonly definition: CapabilityDefinition;
  readonly envelope: Envelope;
  readonly target: unknown;
  readonly now: Date;
  readonly trail: EvidenceTrail;
  /** `true` for `VerdictService.enqueue` of a capability without `requiresReview`: parked already approved. */
  readonly approved?: boolean;
  /** `true` when `enqueue` consumed the call's confirmation: bound into the item, so the worker does not ask again. */
  readonly approvedWhenQueued?: boolean;
  /** What the reviewer is shown of the proposal's provenance, stored with the item. */
  readonly provenance?: ApproverProvenance | null;
  /** The module's options: the requester is stored as its actor kill switch names it, when `containment` is configured. */
  readonly killSwitches: KillSwitchOptions;
  /** The reviewer's facts, as {@link reviewerSubject} checked them before anything was kept for the item. */
  readonly subject: JsonObject | null;
}

/**
 * The facts a reviewer's CASL ability is checked against, stored with the item: `reviewer.subject`'s, with
 * `capability` added, or `null` without it. Asked before anything is kept for the item (the provenance texts, the
 * run's evidence): facts that are not a plain JSON object are an application fault (ADR 0201).
 * @throws NonCanonicalValueError naming the path (`$.reviewer.subject.placed`)
 */
export function reviewerSubject(
  definition: CapabilityDefinition,
  envelope: Envelope,
  target: unknown,
): JsonObject | null {
  const facts = subjectFacts(definition.requiresReview?.reviewer?.subject?.(envelope, target), ['reviewer', 'subject']);
  // The snapshot's own values, read once when checked: frozen as it is kept.
  return facts === null ? null : Object.freeze({ ...facts, capability: definition.name });
}

/**
 * Step 5 of a capability with `requiresReview` (and `VerdictService.enqueue`): park the exact proposal as
 * a review item bound like a receipt and answer `require_review` (the model reads the fixed answer). The
 * same request parked again finds its item: pending or approved → `require_review` again; rejected,
 * expired or settled → `deny`. Returns the decision and the item. The caller has checked {@link assertParkable}
 * first, before anything it does for the item.
 */
export async function parkForReview(request: ParkRequest): Promise<{ decision: Decision; item: ReviewItem }> {
  const { lane, definition, envelope, target, now, trail, killSwitches, subject } = request;
  const policy = definition.requiresReview;
  const binding = reviewBinding(definition, envelope, target, lane, request.approvedWhenQueued === true);
  const facts = (item: ReviewItem) => ({
    approvalPhase: ReviewPhase.Park,
    approvalOutcome: item.status,
    receiptFingerprint: reviewItemFingerprint(item.id),
  });
  const ttl = policy?.ttlSeconds ?? DEFAULT_REVIEW_TTL_SECONDS;
  // Parking is a write a reviewer acts on: the run's evidence so far is written first (a failure stops it here).
  await trail.beforeMutation();
  const item = await lane.items.park(
    {
      id: newReviewItemId(),
      capability: definition.name,
      arguments: envelope.arguments as JsonValue,
      requestKey: envelope.toolCallId ?? envelope.id,
      ...binding,
      // The key step 0 checks, whatever key the lane binds: a reviewer's approval checks the requester's switch by it.
      requesterActorFingerprint:
        killSwitches.containment === undefined ? null : containedActorFingerprint(envelope.context, killSwitches),
      tenant: envelope.context.tenant,
      conversationId: conversationIdOf(envelope.context, definition.name),
      reviewed: request.approved !== true,
      reason: policy?.reason ?? 'enqueued for deferred execution',
      // What the model wrote can reach it: stored alike on every engine, U+0000 and over-long text included.
      description: storableDescription(policy?.describe?.(envelope, target)),
      subject,
      expiresAt: new Date(now.getTime() + ttl * 1000),
      provenance: request.provenance ?? null,
      now,
    },
    request.approved === true,
  );
  trail.markMutated();
  const decision =
    request.approved === true && item.status === ReviewItemStatus.Approved && !isReviewItemExpired(item, now)
      ? Decision.permit(Stage.Review, 'enqueued for deferred execution')
      : parkedDecision(item, now, policy?.reason ?? 'enqueued for deferred execution');
  trail.record(decision, facts(item));
  return { decision, item };
}

/**
 * What makes a proposal impossible to park, named before anything is parked or spent (its approval, by `enqueue`):
 * a requester's tenant longer than a review item holds, or an argument schema the worker could never re-propose.
 * @throws VerdictConfigurationError
 */
export async function assertParkable(definition: CapabilityDefinition, envelope: Envelope): Promise<void> {
  assertReviewItemTenant(definition.name, envelope.context.tenant);
  await assertReproposable(definition, envelope.arguments);
}

/**
 * The worker proposes the stored arguments again, and its run must bind to what was parked: the capability's schema
 * must parse them to themselves. A schema that transforms a parsed value again (euros to cents, say) would refuse every
 * deferred run at `review`; it is the application's fault, named before anything is parked.
 * @throws VerdictConfigurationError
 */
export async function assertReproposable(definition: CapabilityDefinition, parsed: unknown): Promise<void> {
  const stored = JSON.parse(JSON.stringify(parsed)) as unknown;
  const again = await validateArguments(definition.arguments, stored);
  if (again.valid && fingerprint(JSON.parse(JSON.stringify(again.value))) === fingerprint(stored)) return;
  throw new VerdictConfigurationError(
    `Capability ${definition.name} cannot run deferred: its argument schema changes the arguments it already parsed (a transform), so the worker could never propose what was parked. Parse to a form the schema accepts unchanged, or convert in the executor.`,
  );
}

/** Step 5 of a dry run (`evaluate`): the `require_review` parking would answer, recorded; nothing is parked. */
export function wouldParkForReview(definition: CapabilityDefinition, trail: EvidenceTrail): Decision {
  const decision = Decision.of(Disposition.RequireReview, Stage.Review, definition.requiresReview!.reason);
  trail.record(decision);
  return decision;
}

function parkedDecision(item: ReviewItem, now: Date, reason: string): Decision {
  if (isReviewItemExpired(item, now)) return Decision.deny(Stage.Review, 'the review item expired');
  if (item.status === ReviewItemStatus.Pending || item.status === ReviewItemStatus.Approved)
    return Decision.of(Disposition.RequireReview, Stage.Review, reason);
  if (item.status === ReviewItemStatus.Rejected)
    return Decision.deny(Stage.Review, 'the reviewer rejected this proposal');
  return Decision.deny(Stage.Review, `this reviewed operation was already ${item.status}`);
}

/**
 * Step 10 of a deferred run: the item must still be approved and unexpired, and the fresh execution
 * target, the arguments and the rehydrated requester must bind exactly as they did when the item was
 * parked. A changed resource (its `bind` facts) or another principal denies at stage `review`.
 */
export async function verifyReviewed(
  lane: ReviewLaneOptions,
  { definition, envelope, target, clock, trail }: GateRequest,
  { item }: DeferredRun,
): Promise<Decision> {
  const now = clock();
  const decision =
    item.status !== ReviewItemStatus.Approved
      ? Decision.deny(Stage.Review, `the review item is ${item.status}, not approved`)
      : isReviewItemExpired(item, now)
        ? Decision.deny(Stage.Review, 'the review item expired before execution')
        : !bindsAsParked(lane, { definition, envelope, target }, item)
          ? Decision.deny(
              Stage.Review,
              'the reviewed operation changed: the target, the arguments or the requester differ from what was reviewed',
            )
          : Decision.permit(Stage.Review);
  trail.record(decision, {
    approvalPhase: ReviewPhase.Execution,
    approvalOutcome: decision.permitted ? 'matched' : 'refused',
    receiptFingerprint: reviewItemFingerprint(item.id),
  });
  return decision;
}

/**
 * Whether a worker's run of a directly enqueued item binds as the item was parked with its confirmation consumed by
 * `enqueue` (`VerdictPipeline.enqueue`): only then does the run not ask for the approval again.
 */
export function queuedApproved(
  lane: ReviewLaneOptions,
  { definition, envelope, target }: Pick<GateRequest, 'definition' | 'envelope' | 'target'>,
  item: ReviewItem,
): boolean {
  return (
    !item.reviewed &&
    reviewBinding(definition, envelope, target, lane, true).bindingFingerprint === item.bindingFingerprint
  );
}

/** Whether the run binds as the item was parked: approved when queued, or not. */
function bindsAsParked(
  lane: ReviewLaneOptions,
  at: Pick<GateRequest, 'definition' | 'envelope' | 'target'>,
  item: ReviewItem,
): boolean {
  const { definition, envelope, target } = at;
  const parked = reviewBinding(definition, envelope, target, lane).bindingFingerprint;
  return parked === item.bindingFingerprint || queuedApproved(lane, at, item);
}
