import { Inject, Injectable, Optional } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import type { ActionContext } from '../context/action-context.js';
import { tenantFingerprintOf } from '../context/actor-key.js';
import type { Decision } from '../decisions/decision.js';
import { CapabilityDenied } from '../events/capability-denied.event.js';
import { emitSafely } from '../events/emit-safely.js';
import { KILL_SWITCH_OPTIONS, type KillSwitchOptions } from './kill-switch-options.interface.js';
import type { ContainmentKey } from './containment.js';
import { ContainmentGate } from './containment.gate.js';
import { ContainmentScope } from './containment-scope.js';
import { containedActorFingerprint } from './contained-actor.js';

/** Who asked for the proposal a human decides, fingerprinted as the containment store keys them. */
export interface ContainedRequester {
  /** The requester's {@link containedActorFingerprint} (the module's `actorKey`), `null` when it is not known. */
  readonly actorFingerprint: string | null;
  /**
   * Other fingerprints the requester is known by (a review lane's own `actorKey`): a switch engaged under any of them
   * refuses an approval too, so an operator who named the requester either way stops it.
   */
  readonly otherActorFingerprints?: readonly string[];
  /** `sha256(tenant)`, `null` for no tenant (or not known). */
  readonly tenantFingerprint: string | null;
}

/** One human decision — a reviewer's or an approver's — about someone else's proposal. */
export interface HumanDecision {
  readonly capability: string;
  readonly verdict: 'approve' | 'reject';
  /** The reviewer's or approver's action context, when the caller has it. */
  readonly decider?: ActionContext;
  /** Who asked, when known. */
  readonly requester?: ContainedRequester;
}

/**
 * Kill switches applied to human decisions (docs/containment.md, ADR 0035). An **approval** does not proceed
 * when a switch is engaged for the capability, the requester (actor or tenant) or the decider (actor or
 * tenant): approving hands a contained operation back to execution. A **rejection** closes an item and is the
 * safe direction: it is refused only when the decider's own actor is contained (a contained actor acts on
 * nothing), and stays open to staff of a contained tenant or for a contained capability or requester.
 * A refusal is a `deny` at stage `containment`, recorded by the caller and raised as `CapabilityDenied`.
 */
@Injectable()
export class DecisionContainment {
  constructor(
    @Inject(KILL_SWITCH_OPTIONS) private readonly options: KillSwitchOptions,
    private readonly gate: ContainmentGate,
    @Optional() private readonly events?: EventEmitter2,
  ) {}

  /** The containment deny for `decision`, or `null` when it may proceed. */
  async check(decision: HumanDecision): Promise<Decision | null> {
    if (this.options.containment === undefined) return null;
    return this.gate.checkKeys(this.keysOf(decision));
  }

  /**
   * Whether the decider's own actor is contained: such a decider acts on nothing, approve or reject. What the
   * endpoint guards check before the route runs (the services check the whole rule again).
   */
  async isDeciderContained(decider: ActionContext): Promise<boolean> {
    if (this.options.containment === undefined) return false;
    const actor = containedActorFingerprint(decider, this.options);
    return (await this.gate.checkKeys([{ scope: ContainmentScope.Actor, subject: actor }])) !== null;
  }

  /** Raises `CapabilityDenied` (stage `containment`) for a refused decision, with the decider's fingerprints. */
  report(decision: HumanDecision, refusal: Decision, correlationId: string, occurredAt: Date): void {
    if (this.events === undefined) return;
    const { decider } = decision;
    emitSafely(
      this.events,
      CapabilityDenied.event,
      new CapabilityDenied(
        decision.capability,
        refusal.stage,
        correlationId,
        decider === undefined ? null : containedActorFingerprint(decider, this.options),
        decider === undefined ? null : tenantFingerprintOf(decider),
        occurredAt,
      ),
    );
  }

  private keysOf({ capability, verdict, decider, requester }: HumanDecision): ContainmentKey[] {
    const keys: ContainmentKey[] = [];
    const add = (scope: ContainmentScope, subject: string | null | undefined) => {
      if (subject !== null && subject !== undefined) keys.push({ scope, subject });
    };
    // Derived whether or not a switch is engaged: a decider without a usable actor key is a wiring fault now.
    if (decider !== undefined) add(ContainmentScope.Actor, containedActorFingerprint(decider, this.options));
    if (verdict === 'reject') return keys;
    add(ContainmentScope.Capability, capability);
    if (decider !== undefined) add(ContainmentScope.Tenant, tenantFingerprintOf(decider));
    add(ContainmentScope.Actor, requester?.actorFingerprint);
    for (const other of requester?.otherActorFingerprints ?? []) add(ContainmentScope.Actor, other);
    add(ContainmentScope.Tenant, requester?.tenantFingerprint);
    return keys;
  }
}
