import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { subject } from '@casl/ability';
import type { Approver } from '../approvals/approval-endpoint-hooks.interface.js';
import { CapabilityRegistry } from '../capabilities/capability-registry.js';
import { Decision } from '../decisions/decision.js';
import { Stage } from '../decisions/stage.js';
import { EvidenceRecorder } from '../evidence/evidence-recorder.interface.js';
import { ToolKind } from '../evidence/tool-kind.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { ReviewedOperationRefused } from '../events/reviewed-operation-refused.event.js';
import { fingerprint, fingerprintString } from '../fingerprints/fingerprint.js';
import { actorKeyText } from '../context/actor-key.js';
import { isActionContext } from '../context/action-context.js';
import { DecisionContainment, type HumanDecision } from '../containment/decision-containment.js';
import { deciderRefusal } from '../containment/decider-refusal.js';
import { decisionTrail } from '../evidence/decision-trail.js';
import type { EvidenceTrail } from '../evidence/evidence-trail.js';
import { REVIEW_OPTIONS, type ReviewOptions } from './review-options.interface.js';
import { type PendingReview, pendingReviewOf } from './pending-review.js';
import { reviewActorKey } from './review-binding.js';
import type { ReviewItem } from './review-item.js';
import { ReviewItemStatus } from './review-item-status.js';
import { isItemId, isReviewItemExpired, mayNameItem } from './review-item-rules.js';
import type { ReviewLaneOptions } from './review-lane-options.interface.js';
import { ReviewPhase } from './review-phase.js';
import { configuredReviewLane } from './configured-review-lane.js';
import { reviewItemFingerprint } from './review-item-fingerprint.js';
import { ContextReleaseService } from '../context-release/context-release.service.js';
import { ProvenanceContents } from '../provenance/provenance-contents.js';
import {
  type UntrustedContentRelease,
  type UntrustedContentRequest,
  checkedDestination,
  releaseUntrustedContent,
} from '../provenance/untrusted-content-release.js';
import { isMissingKey } from '../shared/is-missing-key.js';
import { attributionRule, isAttribution } from '../shared/is-attribution.js';
import { isStorableText } from '../shared/storable-text.js';
import { emitSafely } from '../events/emit-safely.js';

/**
 * What a reviewer's approve or reject did. `own_request`: the reviewer is the requester; `forbidden`: their
 * CASL ability has no `review` on the bound target; `not_found` also for an item of another tenant;
 * `contained`: a kill switch refused the decision (docs/containment.md: a contained reviewer decides nothing;
 * an approval of a contained capability's, tenant's or requester's item does not proceed).
 */
export type ReviewOutcome =
  'approved' | 'rejected' | 'not_found' | 'expired' | 'invalid_state' | 'own_request' | 'forbidden' | 'contained';

/** A reviewer's decision, as {@link ReviewService} answers it. */
export interface ReviewTransition {
  readonly outcome: ReviewOutcome;
  readonly itemId: string;
}

/** What an operator's re-queue did: `requeued`, or why not (`invalid_state`: not `approved`, e.g. executed already). */
export type RequeueOutcome = 'requeued' | 'not_found' | 'expired' | 'invalid_state';

/** An operator's re-queue, as {@link ReviewService.requeue} answers it. */
export interface RequeueTransition {
  readonly outcome: RequeueOutcome;
  readonly itemId: string;
}

/** Whether a reviewer may decide an item: the item (when they may), or why not. */
export type ReviewerCheck =
  | { readonly allowed: true; readonly item: ReviewItem }
  | {
      readonly allowed: false;
      readonly outcome: 'not_found' | 'own_request' | 'forbidden' | 'contained';
      /** The item's capability when it was found in the reviewer's tenant, for evidence; `null` otherwise. */
      readonly capability: string | null;
    };

/**
 * The untrusted content of a review item's window for a reviewer: released (per item, see
 * {@link UntrustedContentRelease}) when the reviewer may decide the item, or why not ({@link ReviewService.check}).
 */
export type ReviewContentRelease =
  | ({ readonly allowed: true } & UntrustedContentRelease)
  | Extract<ReviewerCheck, { readonly allowed: false }>
  | {
      readonly allowed: false;
      /** The item is decided (`approved`, `rejected`, settled) or expired: nothing is left to decide on. */
      readonly outcome: 'invalid_state' | 'expired';
      readonly capability: string;
    };

/**
 * The reviewer queue (docs/review-lane.md). Call it from an endpoint that authenticated the reviewer
 * (`@ReviewEndpoint()`): a reviewer decides items of their own tenant only, never an item they asked for
 * themselves (compared by the capability's `actorKey`), only with CASL `review` (or the policy's
 * `reviewer.action`) on the bound target — the capability's subject type with the item's trusted facts — and
 * never while a kill switch refuses the decision (ADR 0035). Every decision is one atomic transition (of racing
 * decisions exactly one applies), recorded at stage `review`, refusals included; the record that the reviewer
 * was authorized is written before the transition, so an evidence failure leaves the item `pending`. An
 * approved item is handed to the queue.
 *
 * @example
 * const [first] = await reviews.pending({ tenant: 'acme', capability: 'orders.refund' });
 * await reviews.approve(first.itemId, { id: 'staff:7', context: staffContext });
 */
@Injectable()
export class ReviewService {
  constructor(
    @Inject(REVIEW_OPTIONS) private readonly options: ReviewOptions,
    @Inject(EvidenceRecorder) private readonly evidence: EvidenceRecorder,
    private readonly registry: CapabilityRegistry,
    private readonly containment: DecisionContainment,
    private readonly releases: ContextReleaseService,
    private readonly contents: ProvenanceContents,
    @Optional() private readonly events?: EventEmitter2,
  ) {}

  /**
   * Pending, unexpired items of `tenant` (and `capability`), oldest first: trusted data only. Items of a capability
   * this process does not register are listed too (the listing needs no capability; hiding them would let them expire
   * unseen): deciding one throws `VerdictConfigurationError`, the deployment fault to fix. A tenant or capability
   * holding U+0000 or a lone surrogate names no item ({@link isStorableText}): `[]` without a lookup, alike on every
   * engine (PostgreSQL failed the lookup of a U+0000 with a raw `QueryFailedError`).
   */
  async pending(query: { readonly tenant: string | null; readonly capability?: string }): Promise<PendingReview[]> {
    const { tenant, capability } = query;
    if ((tenant !== null && !isStorableText(tenant)) || (capability !== undefined && !isStorableText(capability)))
      return [];
    const items = await this.lane().items.pending({ ...query, now: this.now() });
    return items.map(pendingReviewOf);
  }

  /**
   * `pending → approved`, then the item is queued for a worker. `reviewer.id`: an opaque application id, never PII,
   * of at most 255 characters (the item's `decided_by` column; a longer one throws `VerdictConfigurationError` before
   * anything is read or recorded, on every engine alike). `reviewer.context`: the authenticated reviewer's action
   * context (anything else throws `VerdictConfigurationError` as early).
   */
  approve(itemId: string, reviewer: Approver): Promise<ReviewTransition> {
    return this.decide('approve', itemId, reviewer);
  }

  /** `pending → rejected`: the operation will never execute. `reviewer.id` as for {@link approve}. */
  reject(itemId: string, reviewer: Approver): Promise<ReviewTransition> {
    return this.decide('reject', itemId, reviewer);
  }

  /**
   * Whether `reviewer` may decide `itemId` (read only): same tenant, not the requester, CASL on the bound
   * target, and the reviewer's own actor not contained. `approve` and `reject` check it again, and an approval
   * also the item's kill switches (capability, tenant, requester).
   * @throws VerdictConfigurationError without a non-blank item id or when the reviewer's context is not an action
   * context (before anything is read), when the reviewer's actor key is missing (`null`, `undefined`, blank), or
   * when this process does not register the capability of an item in the reviewer's tenant (a deployment fault,
   * never a refusal: nothing is decided or recorded, the item stays pending).
   */
  async check(itemId: string, reviewer: Approver): Promise<ReviewerCheck> {
    if (!isItemId(itemId) || !isActionContext(reviewer?.context))
      throw new VerdictConfigurationError(
        'ReviewService.check needs a non-blank item id and a reviewer with an action context.',
      );
    const item = mayNameItem(itemId) ? await this.lane().items.find(itemId) : null;
    if (item === null || item.tenant !== reviewer.context.tenant)
      return { allowed: false, outcome: 'not_found', capability: null };
    const definition = this.registry.find(item.capability) ?? this.unregistered(item);
    const reviewerKey = reviewActorKey(definition, this.lane())(reviewer.context.actor);
    // A reviewer who names nobody could never be told apart from the requester: a wiring fault, never a pass.
    if (isMissingKey(reviewerKey))
      throw new VerdictConfigurationError(
        `The actorKey of capability "${item.capability}" gave ${typeof reviewerKey === 'string' ? 'a blank string' : String(reviewerKey)} for the reviewer: return the actor's stable, non-blank id.`,
        { capability: item.capability },
      );
    if (fingerprint(reviewerKey) === fingerprint(item.requesterKey))
      return { allowed: false, outcome: 'own_request', capability: item.capability };
    const action = definition.requiresReview?.reviewer?.action ?? 'review';
    const target = subject(definition.subject, { ...(item.subject ?? {}), capability: item.capability });
    const refusal = await deciderRefusal(reviewer.context, action, target, {
      abilityFactory: this.options.abilityFactory,
      containment: this.containment,
    });
    if (refusal !== null) return { allowed: false, outcome: refusal, capability: item.capability };
    return { allowed: true, item };
  }

  /**
   * The raw untrusted text that was in the window of the item's proposal, for a reviewer who may decide the
   * item ({@link check}: same tenant, not the requester, CASL on the bound target, not contained), released as
   * `ApprovalService.untrustedContent` releases it (ADR 0033): each untrusted item through the route from its
   * source to `request.destination`, with release evidence; a route that denies yields `refused` and no text;
   * text the module's content store (`provenance.contents`, ADR 0042) does not hold is `unavailable`. Anyone else gets the check's refusal, and an item no longer pending (or expired) `invalid_state`
   * (`expired`): nothing is released.
   *
   * @throws VerdictConfigurationError without a non-blank item id or a reviewer with a non-blank id and an action context.
   * @throws InvalidReleaseRequestError without a `Destination`.
   * @example
   * const content = await reviews.untrustedContent(itemId, reviewer, { destination: Destination.connection('review-ui', 'staff') });
   */
  async untrustedContent(
    itemId: string,
    reviewer: Approver,
    request: UntrustedContentRequest,
  ): Promise<ReviewContentRelease> {
    if (!isItemId(itemId) || !isReviewer(reviewer))
      throw new VerdictConfigurationError(
        'ReviewService.untrustedContent needs a non-blank item id and a reviewer with a non-blank id and an action context.',
      );
    checkedDestination(request, 'ReviewService.untrustedContent');
    const checked = await this.check(itemId, reviewer);
    if (!checked.allowed) return checked;
    // The text is there to decide on: a decided or expired item has nothing left to decide.
    const { item } = checked;
    if (item.status !== ReviewItemStatus.Pending)
      return { allowed: false, outcome: 'invalid_state', capability: item.capability };
    if (isReviewItemExpired(item, this.now()))
      return { allowed: false, outcome: 'expired', capability: item.capability };
    const release = await releaseUntrustedContent(item.provenance ?? null, request, {
      contents: this.contents,
      releaser: this.releases,
      correlationId: reviewItemFingerprint(itemId),
    });
    return { allowed: true, ...release };
  }

  /**
   * Queues an `approved` item again, for an operator whose queue lost its job (Redis flushed, or the enqueue
   * failed after the approval committed). Only an approved, unexpired item that no worker settled yet is
   * queued; the deferred run's execution claim still lets it execute at most once, however often it is
   * re-queued. Recorded (stage `review`, phase `review_requeue`, `tool_kind: operator`) before it is queued.
   *
   * @throws VerdictConfigurationError without a non-blank item id or a non-blank `by`: nothing is queued.
   * @example await reviews.requeue(itemId, { by: 'operator:7' });
   */
  async requeue(itemId: string, operator: { readonly by: string }): Promise<RequeueTransition> {
    if (!isItemId(itemId) || typeof operator?.by !== 'string' || operator.by.trim() === '')
      throw new VerdictConfigurationError('ReviewService.requeue needs a non-blank item id and a non-blank `by`.');
    const lane = this.lane();
    const now = this.now();
    const item = mayNameItem(itemId) ? await lane.items.find(itemId) : null;
    // The worker that runs it must register its capability (else its job fails); this process need not.
    const outcome: RequeueOutcome =
      item === null
        ? 'not_found'
        : item.status !== ReviewItemStatus.Approved
          ? 'invalid_state'
          : isReviewItemExpired(item, now)
            ? 'expired'
            : 'requeued';
    const trail = this.trail(item?.capability ?? 'review', ToolKind.Operator, ReviewPhase.Requeue, itemId);
    trail.record(
      outcome === 'requeued'
        ? Decision.permit(Stage.Review, `requeued by ${operator.by}`)
        : Decision.deny(Stage.Review, `requeue by ${operator.by} refused: ${outcome}`),
      { approvalOutcome: outcome },
    );
    // Evidence first: a re-queue nobody could record does not happen.
    await trail.beforeMutation();
    if (outcome === 'requeued') await lane.queue.enqueue({ itemId }, { requeue: true });
    return { outcome, itemId };
  }

  private async decide(verdict: 'approve' | 'reject', itemId: string, reviewer: Approver): Promise<ReviewTransition> {
    if (!isItemId(itemId) || !isReviewer(reviewer))
      throw new VerdictConfigurationError(
        `ReviewService.${verdict} needs a non-blank item id and a reviewer with a non-blank id and an action context.`,
      );
    // Refused before anything is recorded, alike on every engine: a longer one does not fit the item's column, and
    // PostgreSQL's refuses U+0000.
    if (!isAttribution(reviewer.id))
      throw new VerdictConfigurationError(
        `ReviewService.${verdict} needs a reviewer id ${attributionRule(reviewer.id)}.`,
      );
    const lane = this.lane();
    const now = this.now();
    const checked = await this.check(itemId, reviewer);
    // An unknown item names no capability; evidence keeps the refusal under the stage's name.
    const capability = (checked.allowed ? checked.item.capability : checked.capability) ?? 'review';
    const trail = this.trail(capability, ToolKind.Reviewer, ReviewPhase.Decision, itemId);
    const item = checked.allowed
      ? checked.item
      : checked.outcome === 'contained'
        ? await lane.items.find(itemId)
        : null;
    const decision = item === null ? null : this.humanDecision(verdict, item, reviewer);
    const contained = decision === null ? null : await this.containment.check(decision);
    if (contained !== null) {
      trail.record(contained, { approvalOutcome: 'contained' });
      await trail.close();
      this.containment.report(decision!, contained, trail.correlationId, now);
      return { outcome: 'contained', itemId };
    }
    if (!checked.allowed) {
      trail.record(Decision.deny(Stage.Review, `${verdict} by ${reviewer.id} refused: ${checked.outcome}`), {
        approvalOutcome: checked.outcome,
      });
      await trail.close();
      return { outcome: checked.outcome, itemId };
    }
    // Evidence before the transition: a reviewer's decision nobody could record leaves the item pending.
    trail.record(Decision.permit(Stage.Review, `${verdict} by ${reviewer.id}: reviewer authorized`), {
      approvalOutcome: 'authorized',
    });
    await trail.beforeMutation();
    const transition = await lane.items.decide({ id: itemId, verdict, by: reviewer.id, now });
    trail.markMutated();
    const applied = transition.outcome === 'approved' || transition.outcome === 'rejected';
    trail.record(
      applied
        ? Decision.permit(Stage.Review, `${transition.outcome} by ${reviewer.id}`)
        : Decision.deny(Stage.Review, `${verdict} by ${reviewer.id} refused: ${transition.outcome}`),
      { approvalOutcome: transition.outcome },
    );
    await trail.close();
    try {
      if (transition.outcome === 'approved') await lane.queue.enqueue({ itemId });
      if (transition.outcome === 'rejected' && transition.item !== null)
        this.refused(transition.item, Decision.deny(Stage.Review, 'rejected'));
    } finally {
      // Decided: nothing is left to show a reviewer, so the window's texts go (ADR 0042), even when the queue did not
      // take the job. Last: a store that cannot forget them fails the request, but never the decision's record or its job.
      if (applied) await this.contents.forget(item?.provenance);
    }
    return { outcome: transition.outcome, itemId };
  }

  /**
   * A deployment fault, never a refusal: a reviewer's process that does not register the capability of an item in
   * their tenant cannot check the reviewer's authority over it. Logged with the item's fingerprint; nothing recorded.
   */
  private unregistered(item: ReviewItem): never {
    const error = new VerdictConfigurationError(
      `This process does not register capability "${item.capability}", which a review item in the reviewer's tenant needs: run reviewer processes with every capability the lane parks.`,
      { capability: item.capability },
    );
    new Logger('Verdict').error(`${error.message} (review item ${reviewItemFingerprint(item.id)})`);
    throw error;
  }

  /** The decision as containment sees it: the item's capability, its requester and tenant, and the reviewer. */
  private humanDecision(verdict: 'approve' | 'reject', item: ReviewItem, reviewer: Approver): HumanDecision {
    const byModule = item.requesterActorFingerprint ?? null;
    // A rejection checks no requester switch: the lane's key is read only where it is checked.
    const byLane =
      byModule === null || verdict === 'approve' ? fingerprintString(actorKeyText(item.requesterKey)) : null;
    return {
      capability: item.capability,
      verdict,
      decider: reviewer.context,
      requester: {
        // As step 0 names them (the module's `actorKey`, stored when parked), and by the lane's key too: a switch
        // engaged under either stops the approval. An item parked without the first is named by the lane's key alone.
        actorFingerprint: byModule ?? byLane,
        otherActorFingerprints: byModule === null || byLane === null || byModule === byLane ? [] : [byLane],
        tenantFingerprint: item.tenant === null ? null : fingerprintString(item.tenant),
      },
    };
  }

  private trail(capability: string, toolKind: ToolKind, phase: ReviewPhase, itemId: string): EvidenceTrail {
    const trail = decisionTrail({
      evidence: this.evidence,
      clock: () => this.now(),
      capability,
      toolKind,
      events: this.events,
    });
    trail.establish({ approvalPhase: phase, receiptFingerprint: reviewItemFingerprint(itemId) });
    return trail;
  }

  private refused(item: ReviewItem, decision: Decision): void {
    if (item.status !== ReviewItemStatus.Rejected) return;
    emitSafely(this.events, ReviewedOperationRefused.event, ReviewedOperationRefused.of(item, decision));
  }

  private lane(): ReviewLaneOptions {
    return configuredReviewLane(this.options);
  }

  private now(): Date {
    return (this.options.clock ?? (() => new Date()))();
  }
}

/** A reviewer Verdict can check: a non-blank id, and the authenticated reviewer's action context (`isActionContext`). */
function isReviewer(reviewer: Approver | undefined): reviewer is Approver {
  return typeof reviewer?.id === 'string' && reviewer.id.trim() !== '' && isActionContext(reviewer.context);
}
