import {
  type BeforeApplicationShutdown,
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  Optional,
} from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { CapabilityRegistry } from '../capabilities/capability-registry.js';
import { type ActionContext, isActionContext } from '../context/action-context.js';
import { ActionContextStore } from '../context/action-context.store.js';
import { Decision } from '../decisions/decision.js';
import { Stage } from '../decisions/stage.js';
import { EvidenceRecorder } from '../evidence/evidence-recorder.interface.js';
import { ToolKind } from '../evidence/tool-kind.js';
import { ReviewedOperationExecuted } from '../events/reviewed-operation-executed.event.js';
import { ReviewedOperationRefused } from '../events/reviewed-operation-refused.event.js';
import { fingerprint } from '../fingerprints/fingerprint.js';
import { VerdictPipeline } from '../pipeline/verdict-pipeline.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { recordReviewDecision } from '../review/review-evidence.js';
import { reviewActorKey } from '../review/review-binding.js';
import type { ReviewItem } from '../review/review-item.js';
import { reviewItemFingerprint } from '../review/review-item-fingerprint.js';
import { isReviewItemExpired, mayNameItem } from '../review/review-item-rules.js';
import { ReviewItemStatus } from '../review/review-item-status.js';
import type { ReviewLaneOptions, WorkingReviewLaneOptions } from '../review/review-lane-options.interface.js';
import { ReviewPhase } from '../review/review-phase.js';
import { DEFERRED_CLAIM_POLICY, deferredItemClaimFingerprint } from '../review/review.gate.js';
import { newClaimId } from '../execution-claims/execution-claim.gate.js';
import { ExecutionClaimStatus } from '../execution-claims/execution-claim-status.js';
import { REVIEW_OPTIONS, type ReviewOptions } from '../review/review-options.interface.js';
import type { DeferredJob, DeferredJobOutcome } from './deferred-job.js';
import { configuredReviewLane } from '../review/configured-review-lane.js';
import { assertLaneRunsJobs, assertReviewLane } from '../review/review-configuration.js';
import { emitSafely } from '../events/emit-safely.js';
import { isMissingKey } from '../shared/is-missing-key.js';

/**
 * Runs delivered jobs of the review lane (docs/review-lane.md). For each job it reads the item from the
 * `ReviewItemStore` (the job carries only its id), refuses an unknown, unapproved or expired item,
 * rehydrates the requester with the application's `rehydrate` hook (never from the job or the item alone)
 * and checks it is the same principal, then re-runs the whole pipeline as the requester: a fresh target
 * (refresh, identity check), CASL again, the reviewed binding (step 10), an execution claim on the item before any
 * gate spends anything (10b), then the rate limit: a retried, duplicated or restarted job executes at most once. An
 * executor that throws leaves the claim `indeterminate` and the job fails (the queue may retry it; the claim refuses the retry). An item
 * whose operation ran but was not settled (its settle failed, or an operator resolved its claim `completed`) is
 * settled `executed` and reported by the next run of it, which finds its claim completed (ADR 0181).
 *
 * Verdict starts it on the configured queue at application bootstrap unless `review.work` is `false`, and closes the
 * queue when the application shuts down: no job is taken after that, and the jobs in flight finish first.
 */
@Injectable()
export class DeferredExecutionWorker implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(
    @Inject(REVIEW_OPTIONS) private readonly options: ReviewOptions,
    @Inject(EvidenceRecorder) private readonly evidence: EvidenceRecorder,
    private readonly pipeline: VerdictPipeline,
    private readonly contexts: ActionContextStore,
    private readonly registry: CapabilityRegistry,
    @Optional() private readonly events?: EventEmitter2,
  ) {
    assertReviewLane(options);
  }

  async onApplicationBootstrap(): Promise<void> {
    const lane = this.options.review;
    if (lane !== undefined && lane.work !== false) await lane.queue.work((job) => this.run(job));
  }

  /**
   * Stops taking jobs and waits for the ones in flight (`queue.close()`), before any module's `onApplicationShutdown`:
   * that is where `TypeOrmModule` destroys its DataSource and `@nestjs/bullmq` closes its connections, in an order
   * that follows `imports`. A job in flight writes its evidence, completes its claim and settles its item before
   * the stores go (ADR 0207). Nest calls it once per `close()`; a second `close()` closes an already closed queue.
   * Nest runs every `onModuleDestroy` before it: a store the application closes there is closed under the jobs. An
   * executor that never returns holds `app.close()` until it does.
   */
  async beforeApplicationShutdown(): Promise<void> {
    await this.options.review?.queue.close();
  }

  /**
   * A deployment fault, never a refusal: a worker handed an approved item of a capability it does not register fails
   * the job (the queue retries it) and logs why; the item stays `approved` for a worker that has it, or an operator's
   * re-queue.
   */
  private assertRegistered(item: ReviewItem): void {
    if (this.registry.find(item.capability) !== undefined) return;
    this.miswired(
      item,
      `This worker does not register capability "${item.capability}", which a review item it was handed needs: run workers with every capability the lane queues.`,
    );
  }

  /**
   * Fails the job with a deployment fault, never a refusal (an unregistered capability, a `rehydrate` hook that
   * answers another shape than the lane reads): nothing is recorded or claimed, the queue may retry the job, and the
   * item stays `approved` for an operator's re-queue once the fault is fixed. Logged with the item's fingerprint.
   */
  private miswired(item: ReviewItem, message: string): never {
    const error = new VerdictConfigurationError(message, { capability: item.capability });
    new Logger('Verdict').error(`${error.message} (review item ${reviewItemFingerprint(item.id)})`);
    throw error;
  }

  /** Runs one job. Refusals are answered (`executed: false`) and recorded; application faults reject. */
  async run(job: DeferredJob): Promise<DeferredJobOutcome> {
    const lane = this.lane();
    // A web-only process's worker handed a job by hand: without rehydrate or claims nothing runs (a deployment fault).
    assertLaneRunsJobs(this.options, lane);
    const itemId = typeof job?.itemId === 'string' ? job.itemId : '';
    // An id no item can have (ADR 0186: over 64 characters, U+0000, a lone surrogate) is unknown without a lookup.
    const item = itemId === '' || !mayNameItem(itemId) ? null : await lane.items.find(itemId);
    const now = this.now();
    if (item === null) {
      await this.dispatch('review', itemId, Decision.deny(Stage.Review, 'no such review item'), 'not_found', now);
      return { itemId, executed: false };
    }
    if (item.status !== ReviewItemStatus.Approved) {
      // Rejected, pending or settled already: nothing runs, and the item keeps the state it has.
      await this.dispatch(
        item.capability,
        itemId,
        Decision.deny(Stage.Review, `the review item is ${item.status}`),
        item.status,
        now,
      );
      return { itemId, executed: false };
    }
    if (isReviewItemExpired(item, now))
      return this.refuse(item, Decision.deny(Stage.Review, 'the review item expired before execution'), 'expired');
    this.assertRegistered(item);
    const context = await this.rehydrate(lane, item);
    if (context === null)
      return this.refuse(
        item,
        Decision.deny(Stage.Review, 'the requester could not be rehydrated as the same principal'),
        'requester_gone',
      );
    await this.dispatch(item.capability, itemId, Decision.permit(Stage.Review), 'dispatched', now);
    const proposal = { capability: item.capability, arguments: item.arguments, toolCallId: item.requestKey };
    const result = await this.contexts.run(context, () =>
      this.pipeline.execute(proposal, ToolKind.Deferred, {}, { item }),
    );
    if (result.executed) {
      // A settle that fails fails the job: its retry (or a re-queue) finds the claim completed and settles the item.
      // Whichever run settles it reports it, once.
      if (await lane.items.settle({ id: item.id, outcome: 'executed', now: this.now() }))
        this.emitExecuted(item, result.correlationId, result.output);
      return { itemId, executed: true };
    }
    // Refused, at any stage: the item's claim decides who settles it. A duplicate delivery finds the claim of the run
    // that holds it, and that run settles the item and reports; a run a gate after its item's claim refused (10b, ADR
    // 0191: the rate limit, the budget, the operation's own claim) released that claim, so this run takes it and
    // settles.
    await this.settleRefused(item, result.decision);
    return { itemId, executed: false };
  }

  /**
   * The requester as the application knows them now, when they are still the principal the item binds; `null` when
   * the directory no longer knows them (or knows them in another tenant, or as someone else).
   *
   * @throws VerdictConfigurationError when `rehydrate` answered something other than `null` (or `undefined`) that is
   * not an action context (`isActionContext`: no tenant where `null` was meant, a blank one, a blank actor), or an
   * actor that has no key (`null`, `undefined`, blank): a wiring fault (the hook answers another shape than the lane
   * reads), never a refusal. Nothing is recorded or claimed; the job fails and the item stays `approved` (ADR 0149).
   */
  private async rehydrate(
    lane: ReviewLaneOptions & Pick<WorkingReviewLaneOptions, 'rehydrate'>,
    item: ReviewItem,
  ): Promise<ActionContext | null> {
    const context = await lane.rehydrate({
      capability: item.capability,
      actorKey: item.requesterKey,
      tenant: item.tenant,
      conversationId: item.conversationId,
    });
    if (context === null || context === undefined) return null;
    if (!isActionContext(context))
      this.miswired(
        item,
        `The review lane's rehydrate answered something that is not an action context for a requester of capability "${item.capability}": answer { actor, tenant } (an actor that is not blank, a tenant that is a non-blank string or null), or null when the requester is gone.`,
      );
    if (context.tenant !== item.tenant) return null;
    const key = reviewActorKey(this.registry.find(item.capability)!, lane)(context.actor);
    if (isMissingKey(key))
      this.miswired(
        item,
        `The actorKey of capability "${item.capability}" gave ${typeof key === 'string' ? 'a blank string' : String(key)} for the requester the review lane's rehydrate returned: return an actor the key reads (the same shape as when it was parked), and the actor's stable, non-blank id from the key.`,
      );
    if (fingerprint(key) !== fingerprint(item.requesterKey)) return null;
    return { ...context, metadata: { ...context.metadata, conversationId: item.conversationId ?? undefined } };
  }

  private async refuse(item: ReviewItem, decision: Decision, outcome: string): Promise<DeferredJobOutcome> {
    await this.dispatch(item.capability, item.id, decision, outcome, this.now());
    await this.settleRefused(item, decision);
    return { itemId: item.id, executed: false };
  }

  /**
   * The claim decides who settles an item, refusals included: a run refused before its own claim settles the
   * item `refused` (and reports it) only when it takes the item's claim itself, and then completes that claim, so a
   * later run is denied at `execution_claim`. The item is settled before its claim completes: an `approved` item
   * whose claim is `completed` always ran (ADR 0181), and a run that finds it so settles it `executed`. A run that
   * finds the claim otherwise taken leaves the item to the run that holds it — that run may be executing (a re-queue
   * or duplicate delivered while it ran, ADR 0035), or it died mid-executor and an operator resolves its claim.
   */
  private async settleRefused(item: ReviewItem, decision: Decision): Promise<void> {
    const claims = this.options.executionClaims;
    if (claims === undefined)
      throw new VerdictConfigurationError(
        'The review lane needs an execution-claim store (`executionClaims` in VerdictModule.forRoot): the item claim decides which deferred run settles an item.',
      );
    const now = this.now();
    const admission = await claims.admit({
      capability: item.capability,
      policy: DEFERRED_CLAIM_POLICY,
      bindingFingerprint: deferredItemClaimFingerprint(item),
      candidateId: newClaimId(),
      now,
    });
    if (!admission.admitted) {
      if (admission.status === ExecutionClaimStatus.Completed) await this.settleRan(item.id);
      return;
    }
    // Settled first: were the claim completed first, a crash in between would leave an approved item that looks run.
    const settled = await this.lane().items.settle({ id: item.id, outcome: 'refused', now });
    if (settled) this.emitRefused(item, decision);
    await claims.complete(admission.claimId, now, admission.attempt);
  }

  /**
   * Settles `executed`, and reports, an item whose claim another run completed: that run executed it and could not
   * settle it (its settle failed, or its worker died first), or an operator resolved the claim `completed` (the
   * effect happened). A refusal settles its item before it completes the claim, so an item still `approved` now ran.
   * Recorded first (phase `review_dispatch`, outcome `executed`); the event names that record's correlation id and
   * carries no output (the executor's was not kept).
   */
  private async settleRan(itemId: string): Promise<void> {
    const lane = this.lane();
    const item = await lane.items.find(itemId);
    if (item?.status !== ReviewItemStatus.Approved) return;
    const now = this.now();
    const ran = Decision.deny(Stage.Review, 'the reviewed operation ran already: its item claim is completed');
    const correlationId = await this.dispatch(item.capability, item.id, ran, ReviewItemStatus.Executed, now);
    if (await lane.items.settle({ id: item.id, outcome: 'executed', now })) this.emitExecuted(item, correlationId);
  }

  /** Records one dispatch decision; answers its correlation id. */
  private dispatch(
    capability: string,
    itemId: string,
    decision: Decision,
    outcome: string,
    now: Date,
  ): Promise<string> {
    const phase = ReviewPhase.Dispatch;
    return recordReviewDecision(this.evidence, {
      capability,
      toolKind: ToolKind.Deferred,
      decision,
      phase,
      outcome,
      itemId,
      now,
    });
  }

  private emitExecuted(item: ReviewItem, correlationId: string, output?: unknown): void {
    const { capability, tenant, conversationId } = item;
    const executed = new ReviewedOperationExecuted(
      reviewItemFingerprint(item.id),
      capability,
      tenant,
      conversationId,
      correlationId,
      output,
    );
    emitSafely(this.events, ReviewedOperationExecuted.event, executed);
  }

  private emitRefused(item: ReviewItem, decision: Decision): void {
    emitSafely(this.events, ReviewedOperationRefused.event, ReviewedOperationRefused.of(item, decision));
  }

  private lane(): ReviewLaneOptions {
    return configuredReviewLane(this.options);
  }

  private now(): Date {
    return (this.options.clock ?? (() => new Date()))();
  }
}
