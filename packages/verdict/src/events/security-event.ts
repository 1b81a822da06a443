import type { Stage } from '../decisions/stage.js';

/**
 * What every pipeline security event carries (docs/evidence.md, "Security events"): facts and
 * fingerprints only, never arguments, target identities, tool-call ids or content. Subclasses add their
 * own facts and name their event in a static `event` (`verdict.<snake_case>`).
 */
export abstract class SecurityEvent {
  constructor(
    /** The registered capability name, or `unknown:<sha256(name)>` for a name the model made up. */
    readonly capability: string,
    readonly stage: Stage,
    /** The run's envelope id: the evidence of the same run shares it. */
    readonly correlationId: string,
    /** `sha256(actorKey(actor))` (module option `actorKey`), `null` when the actor has no key. */
    readonly actorFingerprint: string | null,
    /** `sha256(tenant)`, `null` for a context without a tenant. */
    readonly tenantFingerprint: string | null,
    /** When Verdict decided, by the module's clock (UTC). */
    readonly occurredAt: Date,
  ) {}
}

/** A {@link SecurityEvent} subclass: what a containment rule listens to (`on`). */
export type SecurityEventType<T extends SecurityEvent = SecurityEvent> = (abstract new (...args: never[]) => T) & {
  readonly event: string;
};
