import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { ApprovalPhase } from '../approvals/approval-phase.js';
import { MAX_APPROVAL_BATCH_ID_LENGTH } from '../approvals/approval-batch-id.js';
import { isStorableText } from '../shared/storable-text.js';
import type { ReceiptKey } from '../approvals/approval-receipt-store.interface.js';
import { consumeConfirmation, validateConfirmation } from '../approvals/confirmation.gate.js';
import { askerFingerprints } from '../approvals/receipt-requester.js';
import { authorizeAt } from '../authorization/authorization.gate.js';
import { CapabilityRegistry } from '../capabilities/capability-registry.js';
import { buildEnvelope } from '../capabilities/envelope.gate.js';
import type { GateRequest } from '../capabilities/gate-request.js';
import { ContainmentGate } from '../containment/containment.gate.js';
import { ActionContextStore } from '../context/action-context.store.js';
import { moduleActorKey } from '../context/actor-key.js';
import { Decision } from '../decisions/decision.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { Stage } from '../decisions/stage.js';
import { SecurityEventEmitter } from '../events/security-event-emitter.js';
import { UntrustedInfluenceDetected } from '../events/untrusted-influence-detected.event.js';
import { ActorAttribution } from '../evidence/actor-attribution.js';
import { EvidenceRecorder } from '../evidence/evidence-recorder.interface.js';
import { ToolKind } from '../evidence/tool-kind.js';
import { executeAuthorized, executeWithinClaims } from '../execution-claims/claimed-execution.gate.js';
import {
  type AdmittedClaims,
  type ClaimAttempt,
  type ClaimBinding,
  admitExecutionClaims,
  claimBindingOf,
  holdingItemClaim,
  NO_CLAIMS,
} from '../execution-claims/execution-claim.gate.js';
import { admitTrajectory } from '../forbidden-states/forbidden-state.gate.js';
import { handOverToApprover } from '../provenance/approver-handover.js';
import { ProvenanceContents } from '../provenance/provenance-contents.js';
import { provenanceApplies } from '../provenance/provenance-applicability.js';
import { provenanceWouldConfirm } from '../provenance/provenance-forecast.js';
import { assessProvenance } from '../provenance/provenance.stage.js';
import { consumeRateLimit, rateLimitBucketOf } from '../rate-limits/rate-limit.gate.js';
import { CallCeilingGate } from '../budgets/call-ceiling.gate.js';
import { budgetReservationOf, holdingReservation, reserveBudget, spendingReservation } from '../budgets/budget.gate.js';
import type { BudgetReservation } from '../budgets/budget-store.interface.js';
import { configuredReviewLane } from '../review/configured-review-lane.js';
import {
  type DeferredRun,
  deferredItemClaim,
  assertParkable,
  parkForReview,
  reviewerSubject,
  queuedApproved,
  verifyReviewed,
  wouldParkForReview,
} from '../review/review.gate.js';
import { isThenable } from '../shared/is-thenable.js';
import { refreshExecutionTarget } from '../targets/execution-target.gate.js';
import { resolveProposalTarget } from '../targets/proposal-target.gate.js';
import { withToolCallSpan } from '../telemetry/tool-call-span.js';
import { MODULE_OPTIONS_TOKEN } from '../verdict.module-definition.js';
import type { VerdictModuleOptions } from '../verdict-module-options.interface.js';
import type { ExecutionResult } from '../vocabulary/execution-result.js';
import type { Proposal } from '../vocabulary/proposal.js';
import {
  type GuardOptions,
  type InvocationOptions,
  PipelineRun,
  type PipelineRunSetting,
  RunMode,
  assertProposal,
} from './pipeline-run.js';
import { emitSafely } from '../events/emit-safely.js';
import { assertOptionalFunction } from '../shared/optional-function.js';

type Outcome<T> = T | Decision;

/** What the durable gates admitted: the execution claims, and the spend budget's reservation when there is one. */
interface Admitted extends AdmittedClaims {
  readonly reservation?: BudgetReservation;
}

/** What the durable gates answer: what they admitted, or the decision that stops the run. */
type Gated = Outcome<Admitted>;

/** What the application's code computed for the durable gates before the first of them ran. */
interface Spends {
  /** 11: the rate limit's bucket fingerprint. */
  readonly bucket?: string;
  /** 11a: the spend budget's scope and amount. */
  readonly spend?: BudgetReservation;
  /** 13: the binding of the capability's `atMostOnce` claim. */
  readonly operation: ClaimBinding | null;
}

/**
 * The bound-tool pipeline of docs/architecture.md: the table of contents. Each step is one call into the gate of
 * its mechanism (ADR 0059); the order of the steps is a security property: read each entry mode top to bottom.
 * Policy outcomes are returned as decisions; application faults propagate.
 */
@Injectable()
export class VerdictPipeline {
  private readonly clock: () => Date;
  private readonly actors: ActorAttribution;
  private readonly setting: PipelineRunSetting;
  private readonly ceilings: CallCeilingGate;

  constructor(
    private readonly registry: CapabilityRegistry,
    private readonly contexts: ActionContextStore,
    @Inject(EvidenceRecorder) evidence: EvidenceRecorder,
    @Inject(MODULE_OPTIONS_TOKEN) private readonly options: VerdictModuleOptions,
    private readonly containment: ContainmentGate,
    private readonly securityEvents: SecurityEventEmitter,
    private readonly contents: ProvenanceContents,
    @Optional() private readonly events?: EventEmitter2,
  ) {
    // A `clock` of `null` is none, as every mechanism reads it (`clock ?? () => new Date()`); anything else given is one.
    assertOptionalFunction(options.clock ?? undefined, 'clock', 'clock: () => new Date()');
    assertOptionalFunction(
      options.tenantOf,
      'tenantOf',
      'tenantOf: (target) => (target instanceof Order ? target.tenantId : undefined)',
    );
    const clock = (this.clock = options.clock ?? (() => new Date()));
    this.actors = new ActorAttribution(moduleActorKey(options));
    this.ceilings = new CallCeilingGate(options);
    this.setting = {
      evidence,
      clock,
      evidenceLevel: options.evidenceLevel,
      events,
      securityEvents,
      isRegistered: (name) => registry.find(name) !== undefined,
      currentTenant: () => contexts.current()?.tenant,
    };
  }

  /** Runs the steps of docs/architecture.md in order and executes only on `permit`; one `execute_tool` span. */
  async execute(
    proposal: Proposal,
    toolKind: ToolKind = ToolKind.Service,
    options: InvocationOptions = {},
    /** Review lane: a worker's re-run of an approved review item (`DeferredExecutionWorker`). */
    deferred?: DeferredRun,
  ): Promise<ExecutionResult> {
    return this.run(proposal, invocationMode(proposal, toolKind, options, deferred), async (run) => {
      const at = await this.authorize(proposal, run);
      if (at instanceof Decision) return run.notExecuted(at);
      // 10. Confirmation again, against the execution target's binding.
      let receipt: ReceiptKey | null = null;
      if (at.definition.requiresConfirmation !== undefined) {
        const confirmed = await this.confirm(run, at, ApprovalPhase.ExecutionValidation);
        if (confirmed instanceof Decision) return run.notExecuted(confirmed);
        receipt = confirmed; // null in shadow mode: nothing approved, nothing to consume at step 12
      }
      // 10. Review lane (deferred run): the fresh execution target and the requester must bind as reviewed.
      if (run.deferred !== undefined) {
        const reviewed = await verifyReviewed(configuredReviewLane(this.options), at, run.deferred);
        if (!reviewed.permitted) return run.notExecuted(reviewed);
      }
      // 10a, 11–13 (10b first for a deferred run). The durable gates, most recoverable first.
      let claims = this.passDurableGates(run, at, receipt);
      if (isThenable(claims)) claims = await claims;
      if (claims instanceof Decision) return run.notExecuted(claims);
      // 14. Run the executor with the AuthorizedAction (the evidence so far written first); 15. finalize its claims.
      await run.trail.beforeMutation();
      const admitted = claims;
      return run.executed(
        Stage.Execution,
        await executeAuthorized(
          this.options,
          at,
          admitted,
          (execute) => this.spending(at, admitted, execute),
          options.isPause,
        ),
      );
    });
  }

  /** Runs steps 0–9 and reports the decision without executing anything or spending any gate; one span. */
  async evaluate(proposal: Proposal): Promise<ExecutionResult<never>> {
    return this.untilDurableGates(proposal, RunMode.Evaluate);
  }

  /**
   * A runtime's asking whether a bound tool's call needs approval (ADR 0127): steps 0–9 as `execute` runs them, without
   * an explicit approval — a confirmation issues (or finds) the call's pending receipt, and its challenge is the
   * question — stopping before the first durable gate, so it never spends a gate nor executes; one span.
   */
  async ask(proposal: Proposal): Promise<ExecutionResult<never>> {
    return this.untilDurableGates(proposal, RunMode.Ask);
  }

  /**
   * Whether the provenance policy of a capability without confirmation of its own would ask a human to confirm
   * `proposal` in the current provenance window (ADR 0127): steps 1 and 1a as a dry run that records nothing, appends
   * nothing to the ledger and raises no event. A runtime that asks before executing asks only then.
   */
  async provenanceConfirms(proposal: Proposal): Promise<boolean> {
    assertProposal(proposal);
    const definition = this.registry.find(proposal.capability);
    if (definition === undefined || definition.requiresConfirmation !== undefined) return false;
    if (!provenanceApplies(definition, this.options.provenance)) return false;
    return provenanceWouldConfirm({
      definition,
      proposal,
      context: this.contexts.require(proposal.capability),
      clock: this.clock,
      options: this.options.provenance,
      actorKey: moduleActorKey(this.options),
    });
  }

  /**
   * The migration bridge (docs/architecture.md): steps 0–3, 10a, 11 and 13, then the wrapped tool's own handler
   * with the validated arguments (its claim finalized as in 15). It cannot carry verified confirmation, and its
   * gates key on the proposal target: there is no refresh. One span, which `options.isPause` keeps from marking the
   * runtime's pause as an error; the claim is left `indeterminate` all the same (ADR 0197).
   */
  async guard<T>(
    proposal: Proposal,
    handler: (validatedArguments: unknown) => Promise<T>,
    options: GuardOptions = {},
  ): Promise<ExecutionResult<T>> {
    return this.run(proposal, guardMode(proposal, options), async (run) => {
      const at = await this.admit(proposal, run, false);
      if (at instanceof Decision) return run.notExecuted(at);
      // Review lane: a guarded tool's own handler cannot be parked and re-run by a worker (also a boot error).
      if (at.definition.requiresReview !== undefined)
        return run.notExecuted(run.decided(Decision.deny(Stage.Review, 'review needs a bound tool')));
      let claims = this.passDurableGates(run, at, null);
      if (isThenable(claims)) claims = await claims;
      if (claims instanceof Decision) return run.notExecuted(claims);
      await run.trail.beforeMutation();
      const admitted = claims;
      // No isPause for the claims: a guarded handler's pause leaves its claim indeterminate (ADR 0177, ADR 0197).
      const output = await executeWithinClaims(this.options, at, admitted, () =>
        this.spending(at, admitted, () => handler(at.envelope.arguments)),
      );
      return run.executed(Stage.Proposal, output);
    });
  }

  /**
   * `VerdictService.enqueue`: steps 0–9 now, as the current actor; then the proposal is parked as an approved
   * review item and queued for a worker, which re-runs every step (docs/review-lane.md). A capability with
   * `requiresReview` is parked for its reviewer instead (step 5), as by `execute`. A call that needs confirmation is
   * queued only with its `explicitApproval`: steps 10 and 12 validate and consume the receipt here, before parking, so
   * the approval is spent exactly once, by this run; the worker's run of the item does not ask for it again.
   */
  async enqueue(proposal: Proposal, options: InvocationOptions = {}): Promise<ExecutionResult<never>> {
    return this.run(proposal, invocationMode(proposal, ToolKind.Service, options), async (run) => {
      // Before any step: without a lane, a receipt consumed for the queue would be spent on nothing.
      const lane = configuredReviewLane(this.options);
      const at = await this.authorize(proposal, run);
      if (at instanceof Decision) return run.notExecuted(at);
      // 10 and 12. Confirmation against the execution target, then the receipt consumed: the approval becomes the item.
      let approvedWhenQueued = false;
      if (at.definition.requiresConfirmation !== undefined) {
        const spent = await this.spendApprovalForQueue(run, at);
        if (spent instanceof Decision) return run.notExecuted(spent);
        approvedWhenQueued = spent;
      }
      const { decision, item } = await this.park(run, at, true, approvedWhenQueued);
      if (decision.permitted) await lane.queue.enqueue({ itemId: item.id });
      return run.notExecuted(decision);
    });
  }

  /** Steps 0–9 of a run that executes nothing: the decision they reach, or a `permit` at `execution`. */
  private untilDurableGates(proposal: Proposal, mode: RunMode): Promise<ExecutionResult<never>> {
    return this.run(proposal, mode, async (run) => {
      const at = await this.authorize(proposal, run);
      return run.notExecuted(at instanceof Decision ? at : Decision.permit(Stage.Execution));
    });
  }

  /** Steps 0–4 (4 only for bound execution): what the later gates read, its target the proposal target. */
  private async admit(proposal: Proposal, run: PipelineRun, requireExecutor: boolean): Promise<Outcome<GateRequest>> {
    this.registry.assertBooted();
    const { trail } = run;
    const context = this.contexts.require(proposal.capability);
    run.attribute(context, this.actors.of(context));
    // 0. Containment: an engaged kill switch for the capability, the actor or the tenant denies before anything else.
    const contained =
      this.options.containment === undefined ? null : await this.containment.check(trail.capability, context);
    if (contained !== null) return run.decided(contained);
    // 0a. Call ceilings: a conversation stopped by its refused proposals, or past its tool-call ceiling (a dry run
    // is answered alike and counts nothing; a worker's deferred run was counted when it was proposed).
    if (this.ceilings.configured && run.deferred === undefined) {
      const dryRun = run.toolKind === ToolKind.Evaluation;
      const ceiling = await this.ceilings.admit(context, trail.capability, this.clock(), dryRun);
      if (ceiling !== null) return run.decided(ceiling);
    }
    const definition = this.registry.find(proposal.capability);
    if (definition === undefined) return run.decided(Decision.deny(Stage.Proposal, 'unknown capability'));
    // 1. Build the envelope from validated arguments; invalid → deny.
    let enveloped = buildEnvelope(definition, proposal, { context, id: trail.correlationId, clock: this.clock, trail });
    if (isThenable(enveloped)) enveloped = await enveloped;
    if (enveloped instanceof Decision) return enveloped;
    const { envelope } = enveloped;
    run.argumentsFingerprint = enveloped.argumentsFingerprint;
    // 1a. Provenance: influence analysis of the arguments and the context window, then the capability's policy.
    // Deny stops here; require_confirmation hands steps 5, 10 and 12 a definition whose confirmation carries the
    // provenance summary (docs/provenance.md, ADR 0025). A policy or rule in shadow mode records its refusal as
    // would_deny / would_confirm and goes on (ADR 0098); a plan's refusal is never softened.
    let assessed = assessProvenance({
      definition,
      envelope,
      toolKind: trail.toolKind,
      options: this.options.provenance,
      trail,
      now: envelope.createdAt,
      emit: (event) => emitSafely(this.events, UntrustedInfluenceDetected.event, event),
      actorKey: moduleActorKey(this.options),
      dryRun: trail.toolKind === ToolKind.Evaluation,
    });
    if (isThenable(assessed)) assessed = await assessed;
    if (assessed instanceof Decision) return assessed;
    if (assessed.shadowed !== undefined) run.noteShadowed(assessed.shadowed);
    run.provenance = assessed;
    // 2. Resolve the proposal-stage target. Only TargetNotResolvable is a policy outcome.
    let resolved = resolveProposalTarget(definition, envelope, trail);
    if (isThenable(resolved)) resolved = await resolved;
    if (resolved instanceof Decision) return resolved;
    const { target } = resolved;
    // 3. Authorize the proposal target with the actor's CASL ability (shadow mode: recorded would_deny, and on).
    let authorized = authorizeAt(this.options, { definition, envelope, target }, Stage.Proposal);
    if (isThenable(authorized)) authorized = await authorized;
    if (!authorized.permitted && !run.proceedsPast(definition, run.decided(authorized))) return authorized;
    // 4. Require an executor (the execution-target policy is checked at registration).
    if (requireExecutor && definition.executor === null)
      return run.decided(Decision.deny(Stage.Proposal, 'capability has no executor'));
    if (authorized.permitted) trail.record(authorized);
    return { definition: assessed.definition, envelope, target, clock: this.clock, trail };
  }

  /** Steps 0–9: what the durable gates read, its target the execution target. */
  private async authorize(proposal: Proposal, run: PipelineRun): Promise<Outcome<GateRequest>> {
    const at = await this.admit(proposal, run, true);
    if (at instanceof Decision) return at;
    const { definition, trail } = at;
    // 5. Confirmation: validate the receipt without mutating it; not approved → require_confirmation.
    if (definition.requiresConfirmation !== undefined) {
      const confirmed = await this.confirm(run, at, ApprovalPhase.ProposalValidation);
      if (confirmed instanceof Decision) return confirmed;
    }
    // 5. Review lane: park the exact proposal for a reviewer → require_review (a dry run parks nothing). A worker's
    // deferred run of the approved item goes on instead, and is checked against the reviewed binding at step 10.
    if (definition.requiresReview !== undefined && run.deferred === undefined)
      return run.issueReceipts ? (await this.park(run, at, false)).decision : wouldParkForReview(definition, trail);
    // 6–8. Fingerprint the proposal target, refresh it from trusted inputs, deny any identity difference.
    let refreshed = refreshExecutionTarget(at);
    if (isThenable(refreshed)) refreshed = await refreshed;
    if (refreshed instanceof Decision) return refreshed;
    // 9. Authorize again, with a freshly built ability. From here on nothing reads the proposal target.
    const executing = { ...at, target: refreshed.target };
    let executable = authorizeAt(this.options, executing, Stage.Execution);
    if (isThenable(executable)) executable = await executable;
    trail.record(executable);
    return executable.permitted || run.proceedsPast(definition, executable) ? executing : executable;
  }

  /**
   * Steps 10a and 11–13, the durable gates, most recoverable first — but a deferred run claims its review item
   * before all of them (10b, ADR 0191): each commits on its own, independent of any outer transaction. Store failures
   * propagate; they are never decisions. A capability that uses none of them is answered at once, without a promise.
   */
  private passDurableGates(run: PipelineRun, at: GateRequest, receipt: ReceiptKey | null): Gated | Promise<Gated> {
    const { rateLimit, budget, atMostOnce, forbidStates } = at.definition;
    const none =
      rateLimit === undefined && budget === undefined && atMostOnce === undefined && forbidStates === undefined;
    if (none && receipt === null && run.deferred === undefined) return NO_CLAIMS;
    return this.passSomeDurableGates(run, at, receipt);
  }

  /**
   * {@link passDurableGates} for a capability that uses at least one of them, or a deferred run. Not `async`: the
   * spending gates' promise is answered as it is, one promise fewer per call; a fault of the application's code here
   * throws into the caller's `await` alike.
   */
  private passSomeDurableGates(run: PipelineRun, at: GateRequest, receipt: ReceiptKey | null): Promise<Gated> {
    const { definition } = at;
    // What the application's code computes first — the rate limit's bucket, the spend budget's scope and amount, the
    // operation's claim binding — so that a fault of the application throws before any gate spends anything.
    const spends: Spends = {
      bucket: definition.rateLimit === undefined ? undefined : rateLimitBucketOf(at),
      spend: definition.budget === undefined ? undefined : budgetReservationOf(this.options, at),
      operation: definition.atMostOnce === undefined ? null : claimBindingOf(at, definition.atMostOnce),
    };
    if (run.deferred === undefined) return this.passSpendingGates(run, at, receipt, spends, null);
    // 10b. Review lane (deferred run): claim the item before any gate spends anything, so that a duplicate delivery is
    // denied at `execution_claim`, never by what this run spends (ADR 0191); a later refusal or fault releases it.
    const item = claimBindingOf(at, deferredItemClaim(run.deferred));
    return holdingItemClaim(this.options, at, item, (itemClaim) =>
      this.passSpendingGates(run, at, receipt, spends, itemClaim),
    );
  }

  /** Steps 10a, 11 and 11a, then 12 and 13 (`itemClaim`: a deferred run's, admitted at 10b). */
  private async passSpendingGates(
    run: PipelineRun,
    at: GateRequest,
    receipt: ReceiptKey | null,
    { bucket, spend, operation }: Spends,
    itemClaim: ClaimAttempt | null,
  ): Promise<Gated> {
    const { definition } = at;
    // 10a. Fold the call's effects onto its trajectory's state: deny if a forbidden state would follow.
    // Shadow mode softens 10a, 11, 11a and 12 (recorded would_deny, and on; nothing was spent); never 13.
    if (definition.forbidStates !== undefined) {
      const folded = await admitTrajectory(this.options, at);
      if (!folded.permitted && !run.proceedsPast(definition, folded)) return folded;
    }
    // 11. Consume one semantic rate-limit unit.
    if (bucket !== undefined) {
      const metered = await consumeRateLimit(this.options, at, bucket);
      if (!metered.permitted && !run.proceedsPast(definition, metered)) return metered;
    }
    // 11a. Reserve the spend budget's amount; a refusal or a fault of the later gates releases it.
    if (spend !== undefined) {
      const reservation = await reserveBudget(this.options, at, spend);
      if (reservation instanceof Decision)
        return run.proceedsPast(definition, reservation)
          ? this.admitLastGates(run, at, receipt, operation, itemClaim)
          : reservation;
      const admitted = await holdingReservation(
        this.options.budgets!,
        reservation,
        definition.name,
        () => this.admitLastGates(run, at, receipt, operation, itemClaim),
        (gated) => gated instanceof Decision,
      );
      return admitted instanceof Decision ? admitted : { ...admitted, reservation };
    }
    return this.admitLastGates(run, at, receipt, operation, itemClaim);
  }

  /** Steps 12 and 13: consume the approval receipt, then admit the execution claims (`operation`: `atMostOnce`'s). */
  private async admitLastGates(
    run: PipelineRun,
    at: GateRequest,
    receipt: ReceiptKey | null,
    operation: ClaimBinding | null,
    itemClaim: ClaimAttempt | null,
  ): Promise<Gated> {
    // 12. Atomically consume the approval receipt.
    if (receipt !== null) {
      const consumed = await consumeConfirmation(this.options, receipt, at);
      if (!consumed.permitted && !run.proceedsPast(at.definition, consumed)) return consumed;
    }
    // 13. Atomically admit the operation's execution claim: the last gate (a deferred run holds its item's, 10b).
    return admitExecutionClaims(this.options, at, itemClaim, operation);
  }

  /** Step 14 within the spend budget's reservation, if any: committed on a result, released on a fault. */
  private spending<T>(at: GateRequest, { reservation }: Admitted, execute: () => T | Promise<T>): T | Promise<T> {
    if (reservation === undefined) return execute();
    return spendingReservation(this.options.budgets!, reservation, at.definition.name, execute);
  }

  /**
   * Steps 5 and 10: the receipt's key when this exact proposal was approved, or the decision that stops the run. In
   * shadow mode no receipt is issued, and a refusal is recorded would_confirm / would_deny: `null`, nothing to consume.
   */
  private async confirm(
    run: PipelineRun,
    at: GateRequest,
    phase: ApprovalPhase,
  ): Promise<Decision | ReceiptKey | null> {
    // A worker's run of an item `enqueue` parked with its approval consumed (a capability with `requiresReview` cannot
    // require confirmation, a boot error): the item, bound as approved, and its claim are what remain of it. An item
    // queued without one (in shadow mode) is asked again, as any call.
    if (run.deferred !== undefined && queuedApproved(configuredReviewLane(this.options), at, run.deferred.item))
      return confirmedWhenQueued(at, phase);
    const { explicitApproval, provenance, approvalBatch } = run;
    const issueReceipts = run.issueReceipts && at.definition.enforce !== false;
    const asked = {
      explicitApproval,
      issueReceipts,
      provenance: provenance?.approver ?? null,
      approvalBatch,
      // One pending receipt per actor and tool call, whatever actor key each capability binds it with (ADR 0184).
      askerFingerprints: () => askerFingerprints(at.envelope.context, this.registry, this.options),
    };
    const outcome = await validateConfirmation(this.options, at, asked, phase);
    if (outcome.proceed) return outcome.key;
    if (run.proceedsPast(at.definition, outcome.decision)) return null;
    // Only for an approver still to decide: the texts are deleted once the receipt is decided, and an approved call's
    // resume without its explicit approval keeps none again.
    if (outcome.asksApprover === true) await handOverToApprover(this.contents, provenance, this.clock);
    run.challenge = outcome.challenge;
    return outcome.decision;
  }

  /**
   * Steps 10 and 12 of `enqueue` for a call that needs confirmation: `true` once its approved receipt is consumed,
   * `false` in shadow mode, where nothing was approved (the worker's run asks again), else the decision that stops
   * it. What could never be parked (`assertParkable`) is named before the approval is spent.
   */
  private async spendApprovalForQueue(run: PipelineRun, at: GateRequest): Promise<Decision | boolean> {
    const confirmed = await this.confirm(run, at, ApprovalPhase.ExecutionValidation);
    if (confirmed === null) return false;
    if (confirmed instanceof Decision) return confirmed;
    await assertParkable(at.definition, at.envelope);
    const consumed = await consumeConfirmation(this.options, confirmed, at);
    if (consumed.permitted) return true;
    return run.proceedsPast(at.definition, consumed) ? false : consumed;
  }

  /**
   * Step 5 of the review lane, and `enqueue` (`approved`): park the proposal as a review item; `approvedWhenQueued`
   * when `enqueue` consumed the call's approval, which the item's binding then records. What could never be parked
   * (`assertParkable`) and reviewer facts that are not plain JSON (`reviewerSubject`) throw first, before the
   * provenance texts are kept for the reviewer.
   */
  private async park(
    run: PipelineRun,
    { definition, envelope, target, trail }: GateRequest,
    approved: boolean,
    approvedWhenQueued = false,
  ) {
    const lane = configuredReviewLane(this.options);
    await assertParkable(definition, envelope);
    const subject = reviewerSubject(definition, envelope, target);
    const now = this.clock();
    const provenance = await handOverToApprover(this.contents, run.provenance, this.clock);
    const killSwitches = this.options;
    return parkForReview({
      lane,
      definition,
      envelope,
      target,
      now,
      trail,
      approved,
      approvedWhenQueued,
      provenance,
      killSwitches,
      subject,
    });
  }

  /**
   * One run of an entry mode, in one `execute_tool` span: its evidence written when its steps end; then, still in the
   * span, a refusal is counted toward its conversation's call ceilings (docs/budgets.md), even when that evidence
   * could not be written. A store fault of the count marks the span as any application fault does.
   */
  private run<R extends ExecutionResult<unknown>>(
    proposal: Proposal,
    mode: RunMode,
    steps: (run: PipelineRun) => Promise<R>,
  ): Promise<R> {
    const run = PipelineRun.begin(this.setting, proposal, mode);
    if (!this.ceilings.configured || mode.toolKind === ToolKind.Evaluation || mode.deferred !== undefined)
      return withToolCallSpan(run.subject, () => run.conclude(() => steps(run)), mode.isPause);
    return withToolCallSpan(run.subject, () => this.concludeCounted(run, steps), mode.isPause);
  }

  /** {@link run}'s steps and evidence, then the count of a refusal toward its conversation's call ceilings. */
  private concludeCounted<R extends ExecutionResult<unknown>>(
    run: PipelineRun,
    steps: (run: PipelineRun) => Promise<R>,
  ): Promise<R> {
    // What the steps answered, kept for when the run's last evidence write then fails.
    let answered: R | undefined;
    return run
      .conclude(async () => (answered = await steps(run)))
      .then(
        // A store that cannot count the refusal fails the call: an uncounted refusal is never answered as if counted.
        async (answer) => {
          await this.countRefusal(run, answer);
          return answer;
        },
        // A refusal still counts when its evidence could not be written; that fault, not the count's, is the answer.
        async (fault: unknown) => {
          if (answered !== undefined) await this.countRefusal(run, answered).catch(logUncounted(run));
          throw fault;
        },
      );
  }

  /** After a refused run: count the refusal in its conversation; `ToolLoopDetected` when it stopped it. */
  private async countRefusal(run: PipelineRun, { executed, decision }: ExecutionResult<unknown>): Promise<void> {
    const { context, trail } = run;
    if (executed || context === undefined) return;
    const stopped = await this.ceilings.countRefusal(context, trail.capability, decision, this.clock());
    if (stopped === null) return;
    const { capability, correlationId } = trail;
    const { argumentsFingerprint, actorFingerprint } = run;
    await this.securityEvents.conversationStopped(
      { capability, correlationId, context, argumentsFingerprint, actorFingerprint },
      decision,
      stopped.conversationFingerprint,
      stopped.refusals,
    );
  }
}

/** Logs a refusal's count that failed while another fault already answers the run. */
function logUncounted({ trail }: PipelineRun): (error: unknown) => void {
  return (error) =>
    new Logger('Verdict').error(
      `Could not count a refused proposal toward its conversation's call ceilings (${trail.capability})`,
      error,
    );
}

/**
 * The run mode of `execute` and `enqueue`: the caller's approval and batch; a malformed batch (blank, not a string, or
 * longer than its column), or an `isPause` that is not a function, throws `VerdictConfigurationError` before the run
 * starts.
 */
function invocationMode(
  proposal: Proposal,
  toolKind: ToolKind,
  options: InvocationOptions,
  deferred?: DeferredRun,
): RunMode {
  assertProposal(proposal);
  assertOptionalFunction(options.isPause, 'isPause', 'isPause: (error) => isGraphInterrupt(error)');
  const { approvalBatch } = options;
  if (approvalBatch !== undefined && (typeof approvalBatch !== 'string' || approvalBatch.trim() === ''))
    throw new VerdictConfigurationError(
      'An approvalBatch must be a non-blank batch id (approvalBatchId): a blank one could never be read or decided.',
      { capability: proposal.capability },
    );
  if (approvalBatch !== undefined && approvalBatch.length > MAX_APPROVAL_BATCH_ID_LENGTH)
    throw new VerdictConfigurationError(
      `An approvalBatch is at most ${MAX_APPROVAL_BATCH_ID_LENGTH} characters (got ${approvalBatch.length}): use approvalBatchId.`,
      { capability: proposal.capability },
    );
  if (approvalBatch !== undefined && !isStorableText(approvalBatch))
    throw new VerdictConfigurationError(
      'An approvalBatch holds no U+0000 nor a lone surrogate (PostgreSQL could not store it): use approvalBatchId.',
      { capability: proposal.capability },
    );
  return {
    toolKind,
    explicitApproval: options.explicitApproval === true,
    // A worker's run asks no human: a confirmation it needs is refused without a pending receipt no one would answer.
    issueReceipts: deferred === undefined,
    deferred,
    approvalBatch,
    isPause: options.isPause,
  };
}

/**
 * The run mode of `guard`: the runtime's pause recogniser, for its span only (ADR 0197); an `isPause` that is not a
 * function throws `VerdictConfigurationError` before the run starts.
 */
function guardMode(proposal: Proposal, options: GuardOptions): RunMode {
  assertProposal(proposal);
  assertOptionalFunction(options.isPause, 'isPause', 'isPause: (error) => isGraphInterrupt(error)');
  return options.isPause === undefined ? RunMode.Guard : { ...RunMode.Guard, isPause: options.isPause };
}

/**
 * Steps 5 and 10 of a worker's run of a directly enqueued item: the human approval was consumed when the call was
 * queued (`VerdictPipeline.enqueue`), and is recorded as such; `null`, nothing left to consume at step 12.
 */
function confirmedWhenQueued({ trail }: GateRequest, phase: ApprovalPhase): null {
  trail.record(Decision.permit(Stage.Approval, 'the approval was consumed when the call was queued'), {
    approvalPhase: phase,
    approvalOutcome: 'consumed_when_queued',
    receiptFingerprint: null,
  });
  return null;
}
