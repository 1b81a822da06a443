import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import type { ActionContext } from '../context/action-context.js';
import { attributedActorFingerprint, tenantFingerprintOf, moduleActorKey } from '../context/actor-key.js';
import { conversationIdOf } from '../context/conversation-id.js';
import { ContainmentRules } from '../containment/containment-rules.js';
import type { Decision } from '../decisions/decision.js';
import { Disposition } from '../decisions/disposition.js';
import { SecuritySignal } from '../decisions/security-signal.js';
import { Stage } from '../decisions/stage.js';
import { fingerprint } from '../fingerprints/fingerprint.js';
import { emitSafely } from './emit-safely.js';
import { SECURITY_EVENT_OPTIONS, type SecurityEventOptions } from './security-event-options.interface.js';
import { ApprovalArgumentsChanged } from './approval-arguments-changed.event.js';
import { ApprovalReplayDetected } from './approval-replay-detected.event.js';
import { CapabilityDenied } from './capability-denied.event.js';
import { CrossTenantResourceRequested } from './cross-tenant-resource-requested.event.js';
import { DuplicateExecutionRefused } from './duplicate-execution-refused.event.js';
import { ExecutionRateExceeded } from './execution-rate-exceeded.event.js';
import { ForbiddenStateRefused } from './forbidden-state-refused.event.js';
import { ResourceSubstitutionDetected } from './resource-substitution-detected.event.js';
import { SpendBudgetExceeded } from './spend-budget-exceeded.event.js';
import { ShadowDecisionRecorded } from './shadow-decision-recorded.event.js';
import { shadowOf } from '../decisions/shadow-disposition.js';
import type { SecurityEvent } from './security-event.js';
import { ToolLoopCounter } from './tool-loop-counter.js';
import { ToolLoopDetected } from './tool-loop-detected.event.js';

/** An event class whose instances carry only the common facts. */
type DecisionEventType = (new (...facts: ConstructorParameters<typeof CapabilityDenied>) => SecurityEvent) & {
  readonly event: string;
};

const BY_SIGNAL: Readonly<Record<SecuritySignal, DecisionEventType>> = {
  [SecuritySignal.CrossTenantResourceRequested]: CrossTenantResourceRequested,
  [SecuritySignal.ResourceSubstitutionDetected]: ResourceSubstitutionDetected,
  [SecuritySignal.ApprovalReplayDetected]: ApprovalReplayDetected,
  [SecuritySignal.ApprovalArgumentsChanged]: ApprovalArgumentsChanged,
  [SecuritySignal.ForbiddenStateRefused]: ForbiddenStateRefused,
};

/** The event a run's final decision raises: its signal's, else its stage's default, else `CapabilityDenied` for a deny. */
function eventTypeOf(decision: Decision): DecisionEventType | null {
  if (decision.signal !== undefined) return BY_SIGNAL[decision.signal];
  if (decision.disposition === Disposition.Throttle && decision.stage === Stage.RateLimit) return ExecutionRateExceeded;
  if (decision.disposition === Disposition.Throttle && decision.stage === Stage.Budget) return SpendBudgetExceeded;
  if (decision.disposition !== Disposition.Deny) return null;
  return decision.stage === Stage.ExecutionClaim ? DuplicateExecutionRefused : CapabilityDenied;
}

/** What the pipeline knows about a finished run. */
export interface ObservedRun {
  readonly capability: string;
  readonly correlationId: string;
  readonly context: ActionContext;
  /** `null` when the arguments never validated. */
  readonly argumentsFingerprint: string | null;
  /**
   * The actor's fingerprint when the caller already computed it (the pipeline does, once a run); `null` for an
   * actor without a stable key. Omitted: computed here, a fault of the key function propagating (ADR 0208).
   */
  readonly actorFingerprint?: string | null;
}

/**
 * Maps a finished run to its security events (docs/evidence.md, "Security events"), emits them through
 * `EventEmitter2` when `EventEmitterModule` is imported, and hands them to the containment rules. Off the
 * pipeline's main flow: the pipeline calls {@link observe} once per run, with its final decision.
 */
@Injectable()
export class SecurityEventEmitter {
  private readonly loops: ToolLoopCounter;
  private readonly clock: () => Date;

  constructor(
    @Inject(SECURITY_EVENT_OPTIONS) private readonly options: SecurityEventOptions,
    private readonly rules: ContainmentRules,
    @Optional() private readonly events?: EventEmitter2,
  ) {
    this.loops = new ToolLoopCounter(options.toolLoopThreshold);
    this.clock = options.clock ?? (() => new Date());
  }

  /**
   * Raises the events of one run: `ShadowDecisionRecorded` for each refusal shadow mode went on past (`shadowed`), its
   * decision's, and `ToolLoopDetected` when the same proposal recurs. A listener or a containment rule that fails is
   * logged; the run's result stands, and its other events are raised.
   */
  observe(run: ObservedRun, decision: Decision, shadowed?: readonly Decision[]): Promise<void> | void {
    const { capability, correlationId, context } = run;
    const actor = run.actorFingerprint === undefined ? this.actorFingerprint(context) : run.actorFingerprint;
    const tenant = tenantFingerprintOf(context);
    const now = this.clock();
    const raised: SecurityEvent[] = [];
    if (shadowed !== undefined) raised.push(...shadowEvents(run, actor, tenant, now, shadowed));
    const type = eventTypeOf(decision);
    if (type !== null) raised.push(new type(capability, decision.stage, correlationId, actor, tenant, now));
    const loop = this.loopOf(run, actor, tenant);
    if (loop !== null)
      raised.push(new ToolLoopDetected(capability, decision.stage, correlationId, actor, tenant, now, ...loop));
    // Nothing raised (most permitted runs), or no containment rule to hand the events to: no promise, no turn of
    // the microtask queue.
    if (raised.length === 0) return;
    if (!this.rules.configured) {
      for (const event of raised) this.emit(event);
      return;
    }
    return this.raise(capability, raised);
  }

  /**
   * Raises `ToolLoopDetected` for a conversation that a refused proposal just stopped (its `deniedProposals` call
   * ceiling): the agent is stuck in a loop of refused calls, whatever their arguments. `repetitions` is how many
   * refusals it collected.
   */
  conversationStopped(
    run: ObservedRun,
    decision: Decision,
    conversationFingerprint: string,
    repetitions: number,
  ): Promise<void> | void {
    const { capability, correlationId, context } = run;
    const actor = run.actorFingerprint === undefined ? this.actorFingerprint(context) : run.actorFingerprint;
    const event = new ToolLoopDetected(
      capability,
      decision.stage,
      correlationId,
      actor,
      tenantFingerprintOf(context),
      this.clock(),
      run.argumentsFingerprint ?? fingerprint(null),
      conversationFingerprint,
      repetitions,
    );
    if (!this.rules.configured) return this.emit(event);
    return this.raise(capability, [event]);
  }

  /** Raises `ShadowDecisionRecorded` for the shadowed refusals of a run that ended with an application fault. */
  observeShadowed(run: ObservedRun, shadowed: readonly Decision[]): Promise<void> | void {
    const actor = run.actorFingerprint === undefined ? this.actorFingerprint(run.context) : run.actorFingerprint;
    const raised = shadowEvents(run, actor, tenantFingerprintOf(run.context), this.clock(), shadowed);
    if (!this.rules.configured) {
      for (const event of raised) this.emit(event);
      return;
    }
    return this.raise(run.capability, raised);
  }

  private emit(event: SecurityEvent): void {
    emitSafely(this.events, (event.constructor as unknown as { event: string }).event, event);
  }

  private async raise(capability: string, raised: readonly SecurityEvent[]): Promise<void> {
    for (const event of raised) {
      this.emit(event);
      try {
        await this.rules.observe(event);
      } catch (error) {
        new Logger('Verdict').error(`A containment rule failed on ${event.constructor.name} (${capability})`, error);
      }
    }
  }

  /** `[argumentsFingerprint, conversationFingerprint, repetitions]` when this proposal completes a loop. */
  private loopOf(
    { capability, context, argumentsFingerprint }: ObservedRun,
    actor: string | null,
    tenant: string | null,
  ): [string, string, number] | null {
    if (argumentsFingerprint === null) return null;
    let conversation: string | number | null;
    try {
      conversation = conversationIdOf(context, capability);
    } catch {
      return null; // a malformed conversation id fails the gates that bind it; loop counting just skips it
    }
    if (conversation === null) return null;
    const conversationFingerprint = fingerprint(conversation);
    const repetitions = this.loops.count(
      fingerprint({
        capability,
        arguments: argumentsFingerprint,
        actor,
        tenant,
        conversation: conversationFingerprint,
      }),
    );
    return repetitions === null ? null : [argumentsFingerprint, conversationFingerprint, repetitions];
  }

  /**
   * An actor whose key's answer names nobody or is not plain JSON: the event still fires, attributed to no one. What
   * the key function throws propagates (ADR 0208). The pipeline passes its own `actorFingerprint`, so this runs only
   * for a caller that does not.
   */
  private actorFingerprint(context: ActionContext): string | null {
    return attributedActorFingerprint(context, moduleActorKey(this.options));
  }
}

/** One `ShadowDecisionRecorded` per refusal shadow mode went on past. */
function shadowEvents(
  { capability, correlationId }: ObservedRun,
  actor: string | null,
  tenant: string | null,
  now: Date,
  shadowed: readonly Decision[],
): ShadowDecisionRecorded[] {
  return shadowed.map(
    (refusal) =>
      new ShadowDecisionRecorded(
        capability,
        refusal.stage,
        correlationId,
        actor,
        tenant,
        now,
        shadowOf(refusal.disposition)!,
        refusal.signal ?? null,
      ),
  );
}
