import { SecurityEvent } from './security-event.js';

/**
 * The call's effects would have driven its trajectory into a forbidden state (deny at `execution`). Emitted through @nestjs/event-emitter as {@link ForbiddenStateRefused.event}; fingerprints and facts only.
 */
export class ForbiddenStateRefused extends SecurityEvent {
  static readonly event = 'verdict.forbidden_state_refused';
}
