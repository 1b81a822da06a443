import { Inject, Injectable } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import type { ActionContext } from '../context/action-context.js';
import { tenantFingerprintOf } from '../context/actor-key.js';
import { Decision } from '../decisions/decision.js';
import { Stage } from '../decisions/stage.js';
import { KILL_SWITCH_OPTIONS, type KillSwitchOptions } from './kill-switch-options.interface.js';
import type { Containment, ContainmentKey } from './containment.js';
import { DEFAULT_CONTAINMENT_CACHE_TTL_MS } from './containment-options.interface.js';
import { ContainmentScope } from './containment-scope.js';
import { containedActorFingerprint } from './contained-actor.js';
import { assertContainmentConfigured } from './containment-configuration.js';

interface Snapshot {
  readonly readAt: number;
  readonly switches: ReadonlyMap<string, Containment>;
}

/**
 * Step 0 (docs/containment.md): deny when a kill switch is engaged for the capability, the actor or the
 * tenant, before anything else runs. Reads the store at most once per `cacheTtlMs` per process (one read
 * shared by concurrent calls); a failed read rejects, it is never "not contained". A `containment` option
 * it could not run on (no store, a `cacheTtlMs` that is not a finite number ≥ 0, a rule `containmentRule`
 * would not build) fails the module at boot.
 */
@Injectable()
export class ContainmentGate {
  private snapshot: Snapshot | null = null;
  private reading: { readonly startedAt: number; readonly snapshot: Promise<Snapshot> } | null = null;
  private generation = 0;

  /**
   * @throws VerdictConfigurationError at boot for a `containment` option it could not run on
   * (`assertContainmentConfigured`).
   */
  constructor(@Inject(KILL_SWITCH_OPTIONS) private readonly options: KillSwitchOptions) {
    assertContainmentConfigured(options);
  }

  /** The deny for `capability` in `context`, or `null` when no switch applies (or containment is not configured). */
  async check(capability: string, context: ActionContext): Promise<Decision | null> {
    if (this.options.containment === undefined) return null;
    // Derived on every call, engaged switches or not: an actor without a usable key is a wiring fault now, not in an incident.
    const actor = containedActorFingerprint(context, this.options);
    const tenant = tenantFingerprintOf(context);
    return this.checkKeys([
      { scope: ContainmentScope.Capability, subject: capability },
      { scope: ContainmentScope.Actor, subject: actor },
      ...(tenant === null ? [] : [{ scope: ContainmentScope.Tenant, subject: tenant }]),
    ]);
  }

  /**
   * The deny when a switch is engaged for any of `keys` (the first engaged one, in order), or `null`. Actor and
   * tenant subjects are fingerprints, as the store keeps them. Used where there is no single action context:
   * a reviewer's or an approver's decision about someone else's proposal.
   */
  async checkKeys(keys: readonly ContainmentKey[]): Promise<Decision | null> {
    if (this.options.containment === undefined) return null;
    const { switches } = await this.current();
    const engaged = keys.map((key) => switches.get(keyOf(key.scope, key.subject))).find((c) => c !== undefined);
    if (engaged === undefined) return null;
    return Decision.deny(
      Stage.Containment,
      `contained: the ${engaged.scope} is switched off (engaged by ${JSON.stringify(engaged.engagedBy)} at ${engaged.engagedAt.toISOString()})`,
    );
  }

  /** Forgets the cached read: this process's next call reads the store (after its own engagement or release). */
  invalidate(): void {
    this.generation++;
    this.snapshot = null;
    this.reading = null;
  }

  private current(): Promise<Snapshot> {
    const ttl = this.options.containment!.cacheTtlMs ?? DEFAULT_CONTAINMENT_CACHE_TTL_MS;
    const now = performance.now();
    const snapshot = this.snapshot;
    if (snapshot !== null && now - snapshot.readAt < ttl) return Promise.resolve(snapshot);
    // Join a read in flight only if it began within the TTL: the bound holds however slow the store is.
    const reading = this.reading;
    if (reading !== null && now - reading.startedAt < ttl) return reading.snapshot;
    const started = { startedAt: now, snapshot: this.read(this.generation, now) };
    this.reading = started;
    started.snapshot
      .finally(() => {
        if (this.reading === started) this.reading = null;
      })
      .catch(() => undefined);
    return started.snapshot;
  }

  /** `readAt` is when the read began: a switch engaged while it runs is seen within the TTL after that instant. */
  private async read(generation: number, readAt: number): Promise<Snapshot> {
    const active = await this.options.containment!.store.active();
    const snapshot = { readAt, switches: new Map(active.map((c) => [keyOf(c.scope, c.subject), c])) };
    // A read that began before an invalidation, or before the kept one, answers its callers but is not kept.
    if (generation === this.generation && (this.snapshot === null || this.snapshot.readAt < readAt))
      this.snapshot = snapshot;
    return snapshot;
  }
}

function keyOf(scope: ContainmentScope, subject: string): string {
  return `${scope}\u0000${subject}`;
}
