import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
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
import { EvidenceWriteFailed } from '../events/evidence-write-failed.event.js';
import { admitExecutionClaim, finalizeExecutionClaim } from '../execution-claims/execution-claim.gate.js';
import { consumeRateLimit } from '../rate-limits/rate-limit.gate.js';
import { admitTrajectory } from '../forbidden-states/forbidden-state.gate.js';
import type { AuthorizedAction } from '../vocabulary/authorized-action.js';
import type { Envelope } from '../vocabulary/envelope.js';
import { EvidenceTrail } from '../evidence/evidence-trail.js';
import { evidenceStreamOf } from '../evidence/evidence-stream.js';
import type { ExecutionResult } from '../vocabulary/execution-result.js';
import type { Proposal } from '../vocabulary/proposal.js';
import { type InvocationOptions, PipelineRun } from './pipeline-run.js';
import { ApprovalPhase } from '../approvals/approval-phase.js';
import type { ReceiptKey } from '../approvals/approval-receipt-store.interface.js';
import { consumeConfirmation, validateConfirmation } from '../approvals/confirmation.gate.js';
import type { ConfirmationPolicy } from '../approvals/requires-confirmation.js';

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

/** The durable gates' answer for a capability that uses none of them. */
const NO_CLAIM = Object.freeze({ claimId: null });

/**
 * The bound-tool pipeline of docs/architecture.md. The order of the steps is a security property: read
 * {@link execute} top to bottom. Policy outcomes are returned as decisions; application faults propagate.
 */
@Injectable()
export class VerdictPipeline {
  private readonly clock: () => Date;

  constructor(
    private readonly registry: CapabilityRegistry,
    private readonly contexts: ActionContextStore,
    @Inject(EvidenceRecorder) private readonly evidence: EvidenceRecorder,
    @Inject(MODULE_OPTIONS_TOKEN) private readonly options: VerdictModuleOptions,
    @Optional() private readonly events?: EventEmitter2,
  ) {
    this.clock = options.clock ?? (() => new Date());
  }

  /** Runs the steps of docs/architecture.md in order and executes only on `permit`. */
  async execute(
    proposal: Proposal,
    toolKind: ToolKind = ToolKind.Service,
    options: InvocationOptions = {},
  ): Promise<ExecutionResult> {
    const run = this.begin(proposal, toolKind, options.explicitApproval === true, true);
    return this.concluded(run, () => this.executeSteps(proposal, run));
  }

  /** The steps of {@link execute}, in order. */
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
    // 10a, 11–13. The durable gates, most recoverable first; nothing below reads the proposal snapshot.
    const admitted = await this.passDurableGates(definition, envelope, executionTarget, run, receipt);
    if (admitted instanceof Decision) return this.notExecuted(run, admitted);
    // 14. Run the executor with the AuthorizedAction (the evidence so far written first); 15. finalize its claim.
    await run.trail.beforeMutation();
    const { claimId } = admitted;
    const action: AuthorizedAction = {
      capability: definition.name,
      target: executionTarget,
      arguments: envelope.arguments,
      context: envelope.context,
      executionIdentity: claimId ?? envelope.id,
    };
    const output =
      claimId === null
        ? await definition.executor!(action)
        : await this.finalize(definition, claimId, async () => definition.executor!(action));
    return this.executed(run, Stage.Execution, output);
  }

  /** Runs steps 1–9 and reports the decision without executing anything or spending any gate. */
  async evaluate(proposal: Proposal): Promise<ExecutionResult<never>> {
    const run = this.begin(proposal, ToolKind.Evaluation, false, false);
    return this.concluded(run, async () => {
      const authorized = await this.authorize(proposal, run);
      return this.notExecuted(run, authorized instanceof Decision ? authorized : Decision.permit(Stage.Execution));
    });
  }

  /**
   * The migration bridge (docs/architecture.md): steps 1–3, 10a, 11 and 13, then the wrapped tool's own handler with
   * the validated arguments (its claim finalized as in 15). It cannot carry verified confirmation, and
   * its gates key on the proposal target: there is no refresh.
   */
  async guard<T>(
    proposal: Proposal,
    handler: (validatedArguments: unknown) => Promise<T>,
  ): Promise<ExecutionResult<T>> {
    const run = this.begin(proposal, ToolKind.Guarded, false, false);
    return this.concluded(run, () => this.guardSteps(proposal, handler, run));
  }

  /** The steps of {@link guard}, in order. */
  private async guardSteps<T>(
    proposal: Proposal,
    handler: (validatedArguments: unknown) => Promise<T>,
    run: PipelineRun,
  ): Promise<ExecutionResult<T>> {
    const admissible = await this.admit(proposal, run.trail, false);
    if (admissible instanceof Decision) return this.notExecuted(run, admissible);
    const { definition, envelope, proposalTarget } = admissible;
    const admitted = await this.passDurableGates(definition, envelope, proposalTarget, run, null);
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
   * of any outer transaction. Store failures propagate; they are never decisions.
   */
  private async passDurableGates(
    definition: CapabilityDefinition,
    envelope: Envelope,
    target: unknown,
    run: PipelineRun,
    receipt: ReceiptKey | null,
  ): Promise<Outcome<{ claimId: string | null }>> {
    if (
      definition.rateLimit === undefined &&
      receipt === null &&
      definition.atMostOnce === undefined &&
      definition.forbidStates === undefined
    )
      return NO_CLAIM;
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
    // 13. Atomically admit the execution claim: the last gate.
    if (definition.atMostOnce === undefined) return { claimId: null };
    const claimed = await admitExecutionClaim(
      this.options.executionClaims!,
      definition.atMostOnce,
      definition.name,
      envelope,
      target,
      this.clock(),
      trail,
    );
    return claimed instanceof Decision ? claimed : { claimId: claimed };
  }

  /** Steps 14 and 15 for an operation an execution claim admitted. */
  private finalize<T>(definition: CapabilityDefinition, claimId: string, run: () => Promise<T>): Promise<T> {
    return finalizeExecutionClaim(this.options.executionClaims!, definition.name, claimId, run, this.clock);
  }

  /** Steps 1–9. */
  private async authorize(proposal: Proposal, run: PipelineRun): Promise<Outcome<Authorized>> {
    const { trail } = run;
    const admissible = await this.admit(proposal, trail, true);
    if (admissible instanceof Decision) return admissible;
    const { definition, envelope, proposalTarget } = admissible;
    const { context } = envelope;
    const policy = definition.executionTarget;
    // 5. Confirmation: validate the receipt without mutating it; not approved → require_confirmation.
    if (definition.requiresConfirmation !== undefined) {
      const confirmed = await this.confirm(run, definition, envelope, proposalTarget, ApprovalPhase.ProposalValidation);
      if (confirmed instanceof Decision) return confirmed;
    }
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
      executionTarget =
        policy.strategy === TargetStrategy.Refresh
          ? await policy.refresh!(proposalTarget, context, definition.host)
          : proposalTarget;
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
        );
    await trail.record(refreshed);
    if (!refreshed.permitted) return refreshed;
    // 9. Authorize again, against the execution target, with a freshly built ability.
    const ability = await this.options.abilityFactory.createForContext(context);
    const executable = authorizeTarget(ability, definition, executionTarget, envelope.arguments, Stage.Execution);
    await trail.record(executable);
    if (!executable.permitted) return executable;
    return { ...admissible, executionTarget };
  }

  /** Steps 1–4 (4 only for bound execution). */
  private async admit(
    proposal: Proposal,
    trail: EvidenceTrail,
    requireExecutor: boolean,
  ): Promise<Outcome<Admissible>> {
    if (!this.registry.isBooted)
      throw new VerdictConfigurationError(
        'Verdict has not finished booting: initialise the application (app.init() / moduleRef.init()) before proposals run.',
      );
    const context = this.contexts.require(proposal.capability);
    const definition = this.registry.find(proposal.capability);
    if (definition === undefined) return this.decided(trail, Decision.deny(Stage.Proposal, 'unknown capability'));
    // 1. Build the envelope from validated arguments; invalid → deny.
    const validation = await validateArguments(definition.arguments, proposal.arguments);
    if (!validation.valid)
      return this.decided(trail, Decision.deny(Stage.Proposal, `invalid arguments: ${validation.problems}`));
    try {
      trail.establish({ argumentsFingerprint: fingerprint(validation.value) });
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
    // 2. Resolve the proposal-stage target. Only TargetNotResolvable is a policy outcome.
    let proposalTarget: unknown;
    try {
      const { resolveTarget, host } = definition;
      proposalTarget =
        resolveTarget.from === 'proposal'
          ? await resolveTarget.resolve(envelope, host)
          : await resolveTarget.resolve(context, host);
    } catch (error) {
      if (!(error instanceof TargetNotResolvable)) throw error;
      return this.decided(trail, Decision.deny(Stage.Proposal, error.message));
    }
    // 3. Authorize the proposal target with the actor's CASL ability.
    const ability = await this.options.abilityFactory.createForContext(context);
    const authorized = authorizeTarget(ability, definition, proposalTarget, envelope.arguments, Stage.Proposal);
    if (!authorized.permitted) return this.decided(trail, authorized);
    // 4. Require an executor (the execution-target policy is checked at registration).
    if (requireExecutor && definition.executor === null)
      return this.decided(trail, Decision.deny(Stage.Proposal, 'capability has no executor'));
    await trail.record(authorized);
    return { definition, envelope, proposalTarget };
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
    };
    const outcome = await validateConfirmation(context, target, phase);
    if (outcome.proceed) return outcome.key;
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
  ): PipelineRun {
    return new PipelineRun(this.trail(proposal, toolKind), explicitApproval, issueReceipts);
  }

  private trail(proposal: Proposal, toolKind: ToolKind): EvidenceTrail {
    // An unknown name is model-written text: evidence keeps its fingerprint, never the text itself.
    const name = String(proposal.capability);
    const capability = this.registry.find(name) === undefined ? `unknown:${fingerprintString(name)}` : name;
    const trail = new EvidenceTrail(
      this.evidence,
      this.clock,
      randomUUID(),
      capability,
      toolKind,
      (failure) => this.reportLateFailure(failure),
      evidenceStreamOf(this.contexts.current()?.tenant),
    );
    if (proposal.toolCallId !== undefined)
      trail.establish({ toolCallFingerprint: fingerprintString(String(proposal.toolCallId)) });
    return trail;
  }

  private reportLateFailure(failure: EvidenceWriteFailed): void {
    if (this.events !== undefined) this.events.emit(EvidenceWriteFailed.event, failure);
    else
      new Logger('Verdict').error(
        `Evidence for ${failure.capability} (${failure.stage}) could not be written after a mutating gate`,
        failure.error,
      );
  }

  private async decided(trail: EvidenceTrail, decision: Decision): Promise<Decision> {
    await trail.record(decision);
    return decision;
  }

  private executed<T>({ trail }: PipelineRun, stage: Stage, output: T): ExecutionResult<T> {
    return {
      executed: true,
      capability: trail.capability,
      correlationId: trail.correlationId,
      decision: Decision.permit(stage),
      output,
    };
  }

  private notExecuted({ trail, challenge }: PipelineRun, decision: Decision): ExecutionResult<never> {
    return { executed: false, capability: trail.capability, correlationId: trail.correlationId, decision, challenge };
  }
}
