import { Inject, Injectable, Optional } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { randomUUID } from 'node:crypto';
import { validateArguments } from '../capabilities/argument-validator.js';
import type { CapabilityDefinition } from '../capabilities/capability-definition.js';
import { CapabilityRegistry } from '../capabilities/capability-registry.js';
import { authorizeTarget } from '../authorization/casl-authorizer.js';
import type { ActionContext } from '../context/action-context.js';
import { ActionContextStore } from '../context/action-context.store.js';
import { Decision } from '../decisions/decision.js';
import { Stage } from '../decisions/stage.js';
import { EvidenceRecorder } from '../evidence/evidence-recorder.interface.js';
import { ToolKind } from '../evidence/tool-kind.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { NonCanonicalValueError } from '../errors/non-canonical-value.error.js';
import { TargetNotResolvable } from '../errors/target-not-resolvable.error.js';
import { fingerprint, fingerprintString } from '../fingerprints/fingerprint.js';
import { TargetStrategy } from '../targets/execution-target-policy.js';
import { MODULE_OPTIONS_TOKEN } from '../verdict.module-definition.js';
import type { VerdictModuleOptions } from '../verdict-module-options.interface.js';
import { admitExecutionClaim, finalizeExecutionClaim } from '../execution-claims/execution-claim.gate.js';
import type { AtMostOncePolicy } from '../execution-claims/at-most-once.js';
import { consumeRateLimit } from '../rate-limits/rate-limit.gate.js';
import { admitTrajectory } from '../forbidden-states/forbidden-state.gate.js';
import type { AuthorizedAction } from '../vocabulary/authorized-action.js';
import type { Envelope } from '../vocabulary/envelope.js';
import { EvidenceTrail } from '../evidence/evidence-trail.js';
import { ActorAttribution } from '../evidence/actor-attribution.js';
import { evidenceStreamOf } from '../evidence/evidence-stream.js';
import { reportLateEvidenceFailure } from '../evidence/late-evidence-failure.js';
import type { ExecutionResult } from '../vocabulary/execution-result.js';
import type { Proposal } from '../vocabulary/proposal.js';
import { type InvocationOptions, PipelineRun } from './pipeline-run.js';
import { isThenable } from '../shared/is-thenable.js';
import { withToolCallSpan } from '../telemetry/tool-call-span.js';
import { ApprovalPhase } from '../approvals/approval-phase.js';
import type { ReceiptKey } from '../approvals/approval-receipt-store.interface.js';
import { consumeConfirmation, validateConfirmation } from '../approvals/confirmation.gate.js';
import type { ConfirmationPolicy } from '../approvals/requires-confirmation.js';
import { ContainmentGate } from '../containment/containment.gate.js';
import { SecuritySignal } from '../decisions/security-signal.js';
import { SecurityEventEmitter } from '../events/security-event-emitter.js';
import type { AnyAbility } from '@casl/ability';
import { assessProvenance } from '../provenance/provenance.stage.js';
import { ProvenanceContents } from '../provenance/provenance-contents.js';
import type { ApproverProvenance } from '../provenance/approver-provenance.js';
import { UntrustedInfluenceDetected } from '../events/untrusted-influence-detected.event.js';
import { type DeferredRun, deferredItemClaim, parkForReview, verifyReviewed } from '../review/review.gate.js';
import { Disposition } from '../decisions/disposition.js';
import { configuredReviewLane } from '../review/configured-review-lane.js';
import type { ReviewLaneOptions } from '../review/review-lane-options.interface.js';

/** The proposal-stage checks passed: what the later steps may use. */
interface Admissible {
  readonly definition: CapabilityDefinition;
  readonly envelope: Envelope;
  readonly proposalTarget: unknown;
}

/** The execution target passed every check up to step 9. */
interface Authorized extends Admissible {
  readonly executionTarget: unknown;
}

type Outcome<T> = T | Decision;

/** The execution claims the durable gates admitted (step 13), `null` where none applies. */
interface Claims {
  readonly claimId: string | null;
  readonly itemClaimId: string | null;
}

/** The durable gates' answer for a capability that uses none of them. */
const NO_CLAIM: Claims = Object.freeze({ claimId: null, itemClaimId: null });

/**
 * The bound-tool pipeline of docs/architecture.md. The order of the steps is a security property: read
 * {@link execute} top to bottom. Policy outcomes are returned as decisions; application faults propagate.
 */
@Injectable()
export class VerdictPipeline {
  private readonly clock: () => Date;
  private readonly actors: ActorAttribution;

  constructor(
    private readonly registry: CapabilityRegistry,
    private readonly contexts: ActionContextStore,
    @Inject(EvidenceRecorder) private readonly evidence: EvidenceRecorder,
    @Inject(MODULE_OPTIONS_TOKEN) private readonly options: VerdictModuleOptions,
    private readonly containment: ContainmentGate,
    private readonly securityEvents: SecurityEventEmitter,
    private readonly contents: ProvenanceContents,
    @Optional() private readonly events?: EventEmitter2,
  ) {
    this.clock = options.clock ?? (() => new Date());
    this.actors = new ActorAttribution(options.actorKey?.bind(options));
  }

  /** Runs the steps of docs/architecture.md in order and executes only on `permit`; one `execute_tool` span. */
  async execute(
    proposal: Proposal,
    toolKind: ToolKind = ToolKind.Service,
    options: InvocationOptions = {},
    /** Review lane: a worker's re-run of an approved review item (`DeferredExecutionWorker`). */
    deferred?: DeferredRun,
  ): Promise<ExecutionResult> {
    const run = this.begin(proposal, toolKind, options.explicitApproval === true, true, deferred);
    return withToolCallSpan(run.subject, () => this.concluded(run, () => this.executeSteps(proposal, run)));
  }

  /** Runs steps 1–9 and reports the decision without executing anything or spending any gate; one span. */
  async evaluate(proposal: Proposal): Promise<ExecutionResult<never>> {
    const run = this.begin(proposal, ToolKind.Evaluation, false, false);
    return withToolCallSpan(run.subject, () => this.concluded(run, () => this.evaluateSteps(proposal, run)));
  }

  /**
   * The migration bridge (docs/architecture.md): steps 1–3, 10a, 11 and 13, then the wrapped tool's own handler with
   * the validated arguments (its claim finalized as in 15). It cannot carry verified confirmation, and
   * its gates key on the proposal target: there is no refresh. One span.
   */
  async guard<T>(
    proposal: Proposal,
    handler: (validatedArguments: unknown) => Promise<T>,
  ): Promise<ExecutionResult<T>> {
    const run = this.begin(proposal, ToolKind.Guarded, false, false);
    return withToolCallSpan(run.subject, () => this.concluded(run, () => this.guardSteps(proposal, run, handler)));
  }

  /** Steps 1–15 of {@link execute}. */
  private async executeSteps(proposal: Proposal, run: PipelineRun): Promise<ExecutionResult> {
    const authorized = await this.authorize(proposal, run);
    if (authorized instanceof Decision) return this.notExecuted(run, authorized);
    const { definition, envelope, executionTarget } = authorized;
    // 10. Confirmation: validate the receipt again, against the execution target's binding.
    let receipt: ReceiptKey | null = null;
    if (definition.requiresConfirmation !== undefined) {
      const confirmed = await this.confirm(
        run,
        definition,
        envelope,
        executionTarget,
        ApprovalPhase.ExecutionValidation,
      );
      if (confirmed instanceof Decision) return this.notExecuted(run, confirmed);
      receipt = confirmed;
    }
    // 10. Review lane (deferred run): the fresh execution target and the requester must bind as reviewed.
    if (run.deferred !== undefined) {
      const reviewed = await verifyReviewed(
        this.reviewLane(),
        definition,
        envelope,
        executionTarget,
        run.deferred,
        this.clock(),
        run.trail,
      );
      if (!reviewed.permitted) return this.notExecuted(run, reviewed);
    }
    // 10a, 11–13. The durable gates, most recoverable first; nothing below reads the proposal snapshot.
    const gated = this.passDurableGates(definition, envelope, executionTarget, run, receipt);
    const admitted = isThenable(gated) ? await gated : gated;
    if (admitted instanceof Decision) return this.notExecuted(run, admitted);
    // 14. Run the executor with the AuthorizedAction (the evidence so far written first); 15. finalize its claim.
    await run.trail.beforeMutation();
    const { claimId, itemClaimId } = admitted;
    const action: AuthorizedAction = {
      capability: definition.name,
      target: executionTarget,
      arguments: envelope.arguments,
      context: envelope.context,
      executionIdentity: claimId ?? envelope.id,
    };
    if (claimId === null && itemClaimId === null)
      return this.executed(run, Stage.Execution, await definition.executor!(action));
    const execute = async () => definition.executor!(action);
    const once = claimId === null ? execute : () => this.finalize(definition, claimId, execute);
    const output = itemClaimId === null ? await once() : await this.finalize(definition, itemClaimId, once);
    return this.executed(run, Stage.Execution, output);
  }

  /** Steps 1–9 of {@link evaluate}. */
  private async evaluateSteps(proposal: Proposal, run: PipelineRun): Promise<ExecutionResult<never>> {
    const authorized = await this.authorize(proposal, run);
    return this.notExecuted(run, authorized instanceof Decision ? authorized : Decision.permit(Stage.Execution));
  }

  /**
   * `VerdictService.enqueue`: steps 1–9 now, as the current actor; then the proposal is parked as an
   * approved review item and queued for a worker, which re-runs every step (docs/review-lane.md). A
   * capability with `requiresReview` is parked for its reviewer instead (step 5), as by `execute`.
   */
  async enqueue(proposal: Proposal): Promise<ExecutionResult<never>> {
    const run = this.begin(proposal, ToolKind.Service, false, true);
    return withToolCallSpan(run.subject, () => this.concluded(run, () => this.enqueueSteps(proposal, run)));
  }

  /** The steps of {@link enqueue}. */
  private async enqueueSteps(proposal: Proposal, run: PipelineRun): Promise<ExecutionResult<never>> {
    const authorized = await this.authorize(proposal, run);
    if (authorized instanceof Decision) return this.notExecuted(run, authorized);
    const { definition, envelope, executionTarget } = authorized;
    const lane = this.reviewLane();
    const parked = { lane, definition, envelope, target: executionTarget, now: this.clock(), trail: run.trail };
    const { decision, item } = await parkForReview({ ...parked, approved: true, provenance: await this.keptFor(run) });
    if (decision.permitted) await lane.queue.enqueue({ itemId: item.id });
    return this.notExecuted(run, decision);
  }

  /** The steps of {@link guard}. */
  private async guardSteps<T>(
    proposal: Proposal,
    run: PipelineRun,
    handler: (validatedArguments: unknown) => Promise<T>,
  ): Promise<ExecutionResult<T>> {
    const admissible = await this.admit(proposal, run, false);
    if (admissible instanceof Decision) return this.notExecuted(run, admissible);
    const { definition, envelope, proposalTarget } = admissible;
    // Review lane: a guarded tool's own handler cannot be parked and re-run by a worker (also a boot error).
    if (definition.requiresReview !== undefined)
      return this.notExecuted(run, this.decided(run.trail, Decision.deny(Stage.Review, 'review needs a bound tool')));
    const gated = this.passDurableGates(definition, envelope, proposalTarget, run, null);
    const admitted = isThenable(gated) ? await gated : gated;
    if (admitted instanceof Decision) return this.notExecuted(run, admitted);
    await run.trail.beforeMutation();
    const { claimId } = admitted;
    const output =
      claimId === null
        ? await handler(envelope.arguments)
        : await this.finalize(definition, claimId, () => handler(envelope.arguments));
    return this.executed(run, Stage.Proposal, output);
  }

  /**
   * Steps 10a and 11–13, the durable gates, most recoverable first: each commits on its own, independent
   * of any outer transaction. Store failures propagate; they are never decisions. A capability that uses
   * none of them is answered at once, without a promise.
   */
  private passDurableGates(
    definition: CapabilityDefinition,
    envelope: Envelope,
    target: unknown,
    run: PipelineRun,
    receipt: ReceiptKey | null,
  ): Outcome<Claims> | Promise<Outcome<Claims>> {
    if (
      definition.rateLimit === undefined &&
      receipt === null &&
      definition.atMostOnce === undefined &&
      run.deferred === undefined &&
      definition.forbidStates === undefined
    )
      return NO_CLAIM;
    return this.passSomeDurableGates(definition, envelope, target, run, receipt);
  }

  /** {@link passDurableGates} for a capability that uses at least one of them. */
  private async passSomeDurableGates(
    definition: CapabilityDefinition,
    envelope: Envelope,
    target: unknown,
    run: PipelineRun,
    receipt: ReceiptKey | null,
  ): Promise<Outcome<Claims>> {
    const { trail } = run;
    // 10a. Fold the call's effects onto its trajectory's state (the policy's scope): deny if a forbidden state would follow.
    if (definition.forbidStates !== undefined) {
      const folded = await admitTrajectory(
        this.options.trajectories!,
        definition.forbidStates,
        envelope,
        target,
        this.clock(),
        trail,
        this.options.actorKey,
      );
      if (!folded.permitted) return folded;
    }
    // 11. Consume one semantic rate-limit unit.
    if (definition.rateLimit !== undefined) {
      const metered = await consumeRateLimit(
        this.options.rateLimits!,
        definition.rateLimit,
        definition.name,
        envelope,
        target,
        this.clock(),
        trail,
      );
      if (!metered.permitted) return metered;
    }
    // 12. Atomically consume the approval receipt.
    if (receipt !== null) {
      const consumed = await consumeConfirmation(
        this.options.approvals!,
        receipt,
        this.clock(),
        trail,
        ApprovalPhase.Consumption,
      );
      if (!consumed.permitted) return consumed;
    }
    // 13. Atomically admit the execution claims: the last gate. A deferred run first claims its review item: its job
    // may be delivered more than once (docs/review-lane.md).
    const claim = (policy: AtMostOncePolicy) =>
      admitExecutionClaim(
        this.options.executionClaims!,
        policy,
        definition.name,
        envelope,
        target,
        this.clock(),
        trail,
      );
    const itemClaimed = run.deferred === undefined ? null : await claim(deferredItemClaim(run.deferred));
    if (itemClaimed instanceof Decision) return itemClaimed;
    if (definition.atMostOnce === undefined) return { claimId: itemClaimed, itemClaimId: null };
    const claimed = await claim(definition.atMostOnce);
    return claimed instanceof Decision ? claimed : { claimId: claimed, itemClaimId: itemClaimed };
  }

  /** Steps 14 and 15 for an operation an execution claim admitted. */
  private finalize<T>(definition: CapabilityDefinition, claimId: string, run: () => Promise<T>): Promise<T> {
    return finalizeExecutionClaim(this.options.executionClaims!, definition.name, claimId, run, this.clock);
  }

  /** Steps 1–9. */
  private async authorize(proposal: Proposal, run: PipelineRun): Promise<Outcome<Authorized>> {
    const { trail } = run;
    const admissible = await this.admit(proposal, run, true);
    if (admissible instanceof Decision) return admissible;
    const { definition, envelope, proposalTarget } = admissible;
    const { context } = envelope;
    const policy = definition.executionTarget;
    // 5. Confirmation: validate the receipt without mutating it; not approved → require_confirmation.
    if (definition.requiresConfirmation !== undefined) {
      const confirmed = await this.confirm(run, definition, envelope, proposalTarget, ApprovalPhase.ProposalValidation);
      if (confirmed instanceof Decision) return confirmed;
    }
    // 5. Review lane: park the exact proposal for a reviewer → require_review. A worker's deferred run of the
    // approved item goes on instead, and is checked against the reviewed binding at step 10.
    if (definition.requiresReview !== undefined && run.deferred === undefined) return this.park(run, admissible);
    // 6. Fingerprint the proposal target's stable identity before any refresh, so in-place mutation is caught.
    const proposalIdentity = this.identityOf(definition, proposalTarget, context);
    trail.establish({
      targetPolicy: policy.name,
      targetStrategy: policy.strategy,
      proposalIdentityFingerprint: proposalIdentity,
    });
    // 7. Refresh from trusted inputs, or reuse the snapshot where the capability chose so explicitly.
    // Invariant: from here on, nothing is derived from `proposalTarget`.
    let executionTarget: unknown;
    try {
      const refreshed =
        policy.strategy === TargetStrategy.Refresh
          ? policy.refresh!(proposalTarget, context, definition.host)
          : proposalTarget;
      executionTarget = isThenable(refreshed) ? await refreshed : refreshed;
    } catch (error) {
      if (!(error instanceof TargetNotResolvable)) throw error;
      return this.decided(trail, Decision.deny(Stage.TargetRefresh, `refresh: ${error.message}`));
    }
    // 8. Fingerprint the execution target; any identity difference is resource substitution.
    const executionIdentity = this.identityOf(definition, executionTarget, context);
    const identityMatch = executionIdentity === proposalIdentity;
    trail.establish({ executionIdentityFingerprint: executionIdentity, identityMatch });
    const refreshed = identityMatch
      ? Decision.permit(Stage.TargetRefresh)
      : Decision.deny(
          Stage.TargetRefresh,
          'resource substitution: execution target identity differs from the proposal target',
          SecuritySignal.ResourceSubstitutionDetected,
        );
    trail.record(refreshed);
    if (!refreshed.permitted) return refreshed;
    // 9. Authorize again, against the execution target, with a freshly built ability.
    const built = this.options.abilityFactory.createForContext(context);
    const ability = isThenable(built) ? await built : built;
    const executable = this.authorizeAt(ability, definition, executionTarget, envelope, Stage.Execution);
    trail.record(executable);
    if (!executable.permitted) return executable;
    return { ...admissible, executionTarget };
  }

  /** Steps 0–4 (4 only for bound execution). */
  private async admit(proposal: Proposal, run: PipelineRun, requireExecutor: boolean): Promise<Outcome<Admissible>> {
    if (!this.registry.isBooted)
      throw new VerdictConfigurationError(
        'Verdict has not finished booting: initialise the application (app.init() / moduleRef.init()) before proposals run.',
      );
    const { trail } = run;
    const context = this.contexts.require(proposal.capability);
    run.context = context;
    // Who proposed: every record carries the fingerprint of the actor's key, never the actor; the kill switch's too.
    run.actorFingerprint = this.actors.of(context);
    trail.establish({ actorFingerprint: run.actorFingerprint });
    // 0. Containment: an engaged kill switch for the capability, the actor or the tenant denies before anything else.
    const contained =
      this.options.containment === undefined ? null : await this.containment.check(trail.capability, context);
    if (contained !== null) return this.decided(trail, contained);
    const definition = this.registry.find(proposal.capability);
    if (definition === undefined) return this.decided(trail, Decision.deny(Stage.Proposal, 'unknown capability'));
    // 1. Build the envelope from validated arguments; invalid → deny.
    const validating = validateArguments(definition.arguments, proposal.arguments);
    const validation = isThenable(validating) ? await validating : validating;
    if (!validation.valid)
      return this.decided(trail, Decision.deny(Stage.Proposal, `invalid arguments: ${validation.problems}`));
    try {
      run.argumentsFingerprint = fingerprint(validation.value);
      trail.establish({ argumentsFingerprint: run.argumentsFingerprint });
    } catch (error) {
      if (!(error instanceof NonCanonicalValueError)) throw error;
      return this.decided(
        trail,
        Decision.deny(Stage.Proposal, `invalid arguments: ${error.problem} at ${fingerprintString(error.path)}`),
      );
    }
    const envelope: Envelope = {
      id: trail.correlationId,
      capability: definition.name,
      arguments: validation.value,
      toolCallId: proposal.toolCallId === undefined ? null : String(proposal.toolCallId),
      context,
      createdAt: this.clock(),
    };
    // 1a. Provenance: influence analysis of the validated arguments and the context window, then the
    // capability's provenance policy. Deny stops here; require_confirmation hands steps 5, 10 and 12 a
    // definition whose confirmation carries the provenance summary (docs/provenance.md, ADR 0025).
    const assessing = assessProvenance({
      definition,
      envelope,
      toolKind: trail.toolKind,
      options: this.options.provenance,
      trail,
      now: envelope.createdAt,
      emit: (event) => this.events?.emit(UntrustedInfluenceDetected.event, event),
      actorKey: this.options.actorKey?.bind(this.options),
      dryRun: trail.toolKind === ToolKind.Evaluation,
    });
    const effective = isThenable(assessing) ? await assessing : assessing;
    if (effective instanceof Decision) return effective;
    run.provenance = effective;
    // 2. Resolve the proposal-stage target. Only TargetNotResolvable is a policy outcome.
    let proposalTarget: unknown;
    try {
      const { resolveTarget, host } = definition;
      const resolved =
        resolveTarget.from === 'proposal'
          ? resolveTarget.resolve(envelope, host)
          : resolveTarget.resolve(context, host);
      proposalTarget = isThenable(resolved) ? await resolved : resolved;
    } catch (error) {
      if (!(error instanceof TargetNotResolvable)) throw error;
      return this.decided(trail, Decision.deny(Stage.Proposal, error.message));
    }
    // 3. Authorize the proposal target with the actor's CASL ability.
    const built = this.options.abilityFactory.createForContext(context);
    const ability = isThenable(built) ? await built : built;
    const authorized = this.authorizeAt(ability, definition, proposalTarget, envelope, Stage.Proposal);
    if (!authorized.permitted) return this.decided(trail, authorized);
    // 4. Require an executor (the execution-target policy is checked at registration).
    if (requireExecutor && definition.executor === null)
      return this.decided(trail, Decision.deny(Stage.Proposal, 'capability has no executor'));
    trail.record(authorized);
    return { definition: effective.definition, envelope, proposalTarget };
  }

  /** Steps 3 and 9: CASL decides; a denied target of another tenant (module option `tenantOf`) also raises its event. */
  private authorizeAt(
    ability: AnyAbility,
    definition: CapabilityDefinition,
    target: unknown,
    envelope: Envelope,
    stage: Stage,
  ): Decision {
    const decision = authorizeTarget(ability, definition, target, envelope.arguments, stage);
    const { tenantOf } = this.options;
    if (decision.permitted || tenantOf === undefined) return decision;
    const owner = tenantOf(target, definition.name);
    const foreign = owner !== undefined && owner !== null && owner !== envelope.context.tenant;
    return foreign ? decision.signalling(SecuritySignal.CrossTenantResourceRequested) : decision;
  }

  /** Step 5 of the review lane; a dry run (`evaluate`) parks nothing. */
  private async park(run: PipelineRun, { definition, envelope, proposalTarget }: Admissible): Promise<Decision> {
    if (!run.issueReceipts)
      return this.decided(
        run.trail,
        Decision.of(Disposition.RequireReview, Stage.Review, definition.requiresReview!.reason),
      );
    const parked = await parkForReview({
      lane: this.reviewLane(),
      definition,
      envelope,
      target: proposalTarget,
      now: this.clock(),
      trail: run.trail,
      provenance: await this.keptFor(run),
    });
    return parked.decision;
  }

  /**
   * The run's provenance for an approver or reviewer, once its call is parked for one: the untrusted texts of
   * its window are kept in the module's content store for a later release to them (ADR 0033, 0042), never with
   * the receipt or item, never in evidence.
   */
  private async keptFor(run: PipelineRun): Promise<ApproverProvenance | null> {
    const assessed = run.provenance;
    if (assessed?.window?.observed === true) await this.contents.keep(assessed.window.items, this.clock());
    return assessed?.approver ?? null;
  }

  private reviewLane(): ReviewLaneOptions {
    return configuredReviewLane(this.options);
  }

  private identityOf(definition: CapabilityDefinition, target: unknown, context: ActionContext): string {
    const policy = definition.executionTarget;
    return fingerprint({
      capability: definition.name,
      target_policy: policy.name,
      identity: policy.identity(target, context),
    });
  }

  /** Steps 5 and 10: the receipt's key when this exact proposal was approved, or the decision that stops the run. */
  private async confirm(
    run: PipelineRun,
    definition: CapabilityDefinition,
    envelope: Envelope,
    target: unknown,
    phase: ApprovalPhase,
  ): Promise<Decision | ReceiptKey> {
    const context = {
      store: this.options.approvals!,
      definition: definition as CapabilityDefinition & { requiresConfirmation: ConfirmationPolicy },
      envelope,
      explicitApproval: run.explicitApproval,
      issueReceipts: run.issueReceipts,
      now: this.clock(),
      trail: run.trail,
      provenance: run.provenance?.approver ?? null,
    };
    const outcome = await validateConfirmation(context, target, phase);
    if (outcome.proceed) return outcome.key;
    if (outcome.challenge !== undefined) await this.keptFor(run);
    run.challenge = outcome.challenge;
    return outcome.decision;
  }

  /**
   * Runs `steps` and then writes the run's remaining evidence: a write failure before any mutating gate
   * stops the action; on an exception the write is attempted and the exception propagates unchanged.
   */
  private async concluded<T>(run: PipelineRun, steps: () => Promise<T>): Promise<T> {
    let result: T;
    try {
      result = await steps();
    } catch (error) {
      await run.trail.closeAfterFault();
      throw error;
    }
    await run.trail.close();
    return result;
  }

  private begin(
    proposal: Proposal,
    toolKind: ToolKind,
    explicitApproval: boolean,
    issueReceipts: boolean,
    deferred?: DeferredRun,
  ): PipelineRun {
    // An unknown name is model-written text: evidence and spans keep its fingerprint, never the text itself.
    const name = String(proposal.capability);
    const capability = this.registry.find(name) === undefined ? `unknown:${fingerprintString(name)}` : name;
    const toolCallFingerprint =
      proposal.toolCallId === undefined ? null : fingerprintString(String(proposal.toolCallId));
    const trail = new EvidenceTrail(
      this.evidence,
      this.clock,
      randomUUID(),
      capability,
      toolKind,
      (failure) => reportLateEvidenceFailure(this.events, failure),
      evidenceStreamOf(this.contexts.current()?.tenant),
      this.options.evidenceLevel,
    );
    if (toolCallFingerprint !== null) trail.establish({ toolCallFingerprint });
    const subject = { capability, toolKind, correlationId: trail.correlationId, toolCallFingerprint };
    return new PipelineRun(trail, toolKind, subject, explicitApproval, issueReceipts, deferred);
  }

  private decided(trail: EvidenceTrail, decision: Decision): Decision {
    trail.record(decision);
    return decision;
  }

  /** The result of a run that executed; a promise only while its security events are still being handled. */
  private executed<T>(run: PipelineRun, stage: Stage, output: T): ExecutionResult<T> | Promise<ExecutionResult<T>> {
    const { trail } = run;
    const decision = Decision.permit(stage);
    const result = {
      executed: true,
      capability: trail.capability,
      correlationId: trail.correlationId,
      decision,
      output,
    };
    return this.afterObserving(run, decision, result as ExecutionResult<T>);
  }

  /** The result of a run that did not execute; a promise only while its security events are still being handled. */
  private notExecuted(run: PipelineRun, decision: Decision): ExecutionResult<never> | Promise<ExecutionResult<never>> {
    const { trail, challenge } = run;
    const result = {
      executed: false,
      capability: trail.capability,
      correlationId: trail.correlationId,
      decision,
      challenge,
    };
    return this.afterObserving(run, decision, result as ExecutionResult<never>);
  }

  /** `result`, once the run's security events are handled: at once when none was raised. */
  private afterObserving<R>(run: PipelineRun, decision: Decision, result: R): R | Promise<R> {
    const observed = this.observe(run, decision);
    return observed === undefined ? result : observed.then(() => result);
  }

  /** Security events of a finished run (docs/evidence.md); a dry run raises none. */
  private observe(run: PipelineRun, decision: Decision): Promise<void> | void {
    const { trail, context, argumentsFingerprint, actorFingerprint } = run;
    if (context === undefined || run.toolKind === ToolKind.Evaluation) return;
    return this.securityEvents.observe(
      {
        capability: trail.capability,
        correlationId: trail.correlationId,
        context,
        argumentsFingerprint,
        actorFingerprint,
      },
      decision,
    );
  }
}
