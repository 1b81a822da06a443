import { SecurityEvent } from './security-event.js';

/**
 * An approval receipt that was already consumed was presented again (or lost the race to consume it): denied at `approval`. Emitted through @nestjs/event-emitter as {@link ApprovalReplayDetected.event}; fingerprints and facts only.
 */
export class ApprovalReplayDetected extends SecurityEvent {
  static readonly event = 'verdict.approval_replay_detected';
}
