import type { SecuritySignal } from '../decisions/security-signal.js';
import type { ShadowDisposition } from '../decisions/shadow-disposition.js';
import type { Stage } from '../decisions/stage.js';
import { SecurityEvent } from './security-event.js';

/**
 * Shadow mode (docs/shadow-mode.md): a step refused the call, but its policy is declared `enforce: false`, so the
 * refusal was recorded as `would_deny` / `would_confirm` and the call went on. One per shadowed refusal, raised with
 * the run's other events. Emitted through @nestjs/event-emitter as {@link ShadowDecisionRecorded.event};
 * fingerprints and facts only (the internal reason stays in evidence).
 */
export class ShadowDecisionRecorded extends SecurityEvent {
  static readonly event = 'verdict.shadow_decision_recorded';

  constructor(
    capability: string,
    stage: Stage,
    correlationId: string,
    actorFingerprint: string | null,
    tenantFingerprint: string | null,
    occurredAt: Date,
    /** What enforcement would have answered. */
    readonly disposition: ShadowDisposition,
    /** The security signal the refusal carried (`cross_tenant_resource_requested`, ...), `null` when none. */
    readonly signal: SecuritySignal | null,
  ) {
    super(capability, stage, correlationId, actorFingerprint, tenantFingerprint, occurredAt);
  }
}
