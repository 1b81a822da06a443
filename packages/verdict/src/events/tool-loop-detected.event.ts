import type { Stage } from '../decisions/stage.js';
import { SecurityEvent } from './security-event.js';

/**
 * The same proposal (same capability, same argument fingerprint) reached Verdict `repetitions` times in
 * one conversation of one actor: raised at every multiple of the module's `toolLoopThreshold`, whatever
 * the decisions were. An observation, not a gate: nothing is refused because of it (a containment rule
 * may act on it). Counted per process; emitted through @nestjs/event-emitter as {@link ToolLoopDetected.event}.
 */
export class ToolLoopDetected extends SecurityEvent {
  static readonly event = 'verdict.tool_loop_detected';

  constructor(
    capability: string,
    stage: Stage,
    correlationId: string,
    actorFingerprint: string | null,
    tenantFingerprint: string | null,
    occurredAt: Date,
    /** `sha256(JCS(arguments))` of the repeated proposal. */
    readonly argumentsFingerprint: string,
    /** `sha256(JCS(conversationId))`. */
    readonly conversationFingerprint: string,
    /** How many times this proposal has been seen in the conversation so far. */
    readonly repetitions: number,
  ) {
    super(capability, stage, correlationId, actorFingerprint, tenantFingerprint, occurredAt);
  }
}
