import { SecurityEvent } from './security-event.js';

/**
 * The refreshed execution target's identity differs from the proposal target's (step 8): denied at `target_refresh`. Emitted through @nestjs/event-emitter as {@link ResourceSubstitutionDetected.event}; fingerprints and facts only.
 */
export class ResourceSubstitutionDetected extends SecurityEvent {
  static readonly event = 'verdict.resource_substitution_detected';
}
