import { Inject, Injectable, Optional } from '@nestjs/common';
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
import { fingerprint } from '../fingerprints/fingerprint.js';
import { MODULE_OPTIONS_TOKEN } from '../verdict.module-definition.js';
import type { VerdictModuleOptions } from '../verdict-module-options.interface.js';
import { type PendingReview, pendingReviewOf } from './pending-review.js';
import { recordReviewDecision } from './review-evidence.js';
import { reviewActorKey } from './review-binding.js';
import type { ReviewItem } from './review-item.js';
import { ReviewItemStatus } from './review-item-status.js';
import type { ReviewLaneOptions } from './review-lane-options.interface.js';
import { ReviewPhase } from './review-phase.js';
import { configuredReviewLane } from './configured-review-lane.js';
import { isMissingKey } from '../shared/is-missing-key.js';

/**
 * What a reviewer's approve or reject did. `own_request`: the reviewer is the requester; `forbidden`: their
 * CASL ability has no `review` on the bound target; `not_found` also for an item of another tenant.
 */
export type ReviewOutcome =
  'approved' | 'rejected' | 'not_found' | 'expired' | 'invalid_state' | 'own_request' | 'forbidden';

/** A reviewer's decision, as {@link ReviewService} answers it. */
export interface ReviewTransition {
  readonly outcome: ReviewOutcome;
  readonly itemId: string;
}

/** Whether a reviewer may decide an item: the item (when they may), or why not. */
export type ReviewerCheck =
  | { readonly allowed: true; readonly item: ReviewItem }
  | {
      readonly allowed: false;
      readonly outcome: 'not_found' | 'own_request' | 'forbidden';
      /** The item's capability when it was found in the reviewer's tenant, for evidence; `null` otherwise. */
      readonly capability: string | null;
    };

/**
 * The reviewer queue (docs/review-lane.md). Call it from an endpoint that authenticated the reviewer
 * (`@ReviewEndpoint()`): a reviewer decides items of their own tenant only, never an item they asked for
 * themselves (compared by the capability's `actorKey`), and only with CASL `review` (or the policy's
 * `reviewer.action`) on the bound target — the capability's subject type with the item's trusted facts.
 * Every decision is one atomic transition (of racing decisions exactly one applies) and is recorded at
 * stage `review`, refusals included. An approved item is handed to the queue.
 *
 * @example
 * const [first] = await reviews.pending({ tenant: 'acme', capability: 'orders.refund' });
 * await reviews.approve(first.itemId, { id: 'staff:7', context: staffContext });
 */
@Injectable()
export class ReviewService {
  constructor(
    @Inject(MODULE_OPTIONS_TOKEN) private readonly options: VerdictModuleOptions,
    @Inject(EvidenceRecorder) private readonly evidence: EvidenceRecorder,
    private readonly registry: CapabilityRegistry,
    @Optional() private readonly events?: EventEmitter2,
  ) {}

  /** Pending, unexpired items of `tenant` (and `capability`), oldest first: trusted data only. */
  async pending(query: { readonly tenant: string | null; readonly capability?: string }): Promise<PendingReview[]> {
    const items = await this.lane().items.pending({ ...query, now: this.now() });
    return items.map(pendingReviewOf);
  }

  /** `pending → approved`, then the item is queued for a worker. `reviewer.id`: an opaque application id, never PII. */
  approve(itemId: string, reviewer: Approver): Promise<ReviewTransition> {
    return this.decide('approve', itemId, reviewer);
  }

  /** `pending → rejected`: the operation will never execute. */
  reject(itemId: string, reviewer: Approver): Promise<ReviewTransition> {
    return this.decide('reject', itemId, reviewer);
  }

  /**
   * Whether `reviewer` may decide `itemId` (read only): same tenant, not the requester, CASL on the bound
   * target. `approve` and `reject` check it again.
   * @throws VerdictConfigurationError when the reviewer's actor key is missing (`null`, `undefined`, blank).
   */
  async check(itemId: string, reviewer: Approver): Promise<ReviewerCheck> {
    const item = await this.lane().items.find(itemId);
    const definition = item === null ? undefined : this.registry.find(item.capability);
    if (item === null || definition === undefined || item.tenant !== reviewer.context.tenant)
      return { allowed: false, outcome: 'not_found', capability: null };
    const reviewerKey = reviewActorKey(definition, this.lane())(reviewer.context.actor);
    // A reviewer who names nobody could never be told apart from the requester: a wiring fault, never a pass.
    if (isMissingKey(reviewerKey))
      throw new VerdictConfigurationError(
        `The actorKey of capability "${item.capability}" gave ${typeof reviewerKey === 'string' ? 'a blank string' : String(reviewerKey)} for the reviewer: return the actor's stable, non-blank id.`,
        { capability: item.capability },
      );
    if (fingerprint(reviewerKey) === fingerprint(item.requesterKey))
      return { allowed: false, outcome: 'own_request', capability: item.capability };
    const ability = await this.options.abilityFactory.createForContext(reviewer.context);
    const action = definition.requiresReview?.reviewer?.action ?? 'review';
    const target = subject(definition.subject, { ...(item.subject ?? {}), capability: item.capability });
    if (!ability.can(action, target as never))
      return { allowed: false, outcome: 'forbidden', capability: item.capability };
    return { allowed: true, item };
  }

  private async decide(verdict: 'approve' | 'reject', itemId: string, reviewer: Approver): Promise<ReviewTransition> {
    if (typeof itemId !== 'string' || itemId === '' || typeof reviewer?.id !== 'string' || reviewer.id.trim() === '')
      throw new VerdictConfigurationError(
        `ReviewService.${verdict} needs an item id and a reviewer with a non-blank id.`,
      );
    const lane = this.lane();
    const now = this.now();
    const checked = await this.check(itemId, reviewer);
    const outcome = checked.allowed
      ? await lane.items.decide({ id: itemId, verdict, by: reviewer.id, now })
      : { outcome: checked.outcome, item: null };
    const applied = outcome.outcome === 'approved' || outcome.outcome === 'rejected';
    // An unknown item names no capability; evidence keeps the refusal under the stage's name.
    const capability = (checked.allowed ? checked.item.capability : checked.capability) ?? 'review';
    const decision = applied
      ? Decision.permit(Stage.Review, `${outcome.outcome} by ${reviewer.id}`)
      : Decision.deny(Stage.Review, `${verdict} by ${reviewer.id} refused: ${outcome.outcome}`);
    const phase = ReviewPhase.Decision;
    await recordReviewDecision(this.evidence, {
      capability,
      toolKind: ToolKind.Reviewer,
      decision,
      phase,
      outcome: outcome.outcome,
      itemId,
      now,
    });
    if (outcome.outcome === 'approved') await lane.queue.enqueue({ itemId });
    if (outcome.outcome === 'rejected' && outcome.item !== null)
      this.refused(outcome.item, Decision.deny(Stage.Review, 'rejected'));
    return { outcome: outcome.outcome, itemId };
  }

  private refused(item: ReviewItem, decision: Decision): void {
    if (item.status !== ReviewItemStatus.Rejected) return;
    this.events?.emit(ReviewedOperationRefused.event, ReviewedOperationRefused.of(item, decision));
  }

  private lane(): ReviewLaneOptions {
    return configuredReviewLane(this.options);
  }

  private now(): Date {
    return (this.options.clock ?? (() => new Date()))();
  }
}
