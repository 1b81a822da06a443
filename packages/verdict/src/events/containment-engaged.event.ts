import { Stage } from '../decisions/stage.js';
import type { ContainmentScope } from '../containment/containment-scope.js';
import { SecurityEvent } from './security-event.js';

/**
 * A kill switch was engaged (docs/containment.md), by an operator or by a containment rule. For an
 * actor or a tenant the subject is its fingerprint (also in `actorFingerprint` / `tenantFingerprint`);
 * for a capability, its name (also in `capability`, which is `*` otherwise). Emitted through
 * @nestjs/event-emitter as {@link ContainmentEngaged.event}.
 */
export class ContainmentEngaged extends SecurityEvent {
  static readonly event = 'verdict.containment_engaged';

  constructor(
    /** The evidence record's correlation id. */
    correlationId: string,
    readonly scope: ContainmentScope,
    /** The capability name, or `sha256(key)` of the actor or tenant. */
    readonly subject: string,
    /** The operator's opaque id (`operator:7`) or `rule:<name>`. */
    readonly engagedBy: string,
    occurredAt: Date,
  ) {
    super(
      scope === 'capability' ? subject : '*',
      Stage.Containment,
      correlationId,
      scope === 'actor' ? subject : null,
      scope === 'tenant' ? subject : null,
      occurredAt,
    );
  }
}
