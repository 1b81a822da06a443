import { SecurityEvent } from './security-event.js';

/**
 * A proposal was denied and no more specific event describes why (invalid arguments, an unknown capability, a CASL refusal, an engaged kill switch at stage `containment` — for a proposal, or for a reviewer's or approver's decision, with the decider's fingerprints — an expired or rejected approval, a target that could not be refreshed). Emitted through @nestjs/event-emitter as {@link CapabilityDenied.event}; fingerprints and facts only.
 */
export class CapabilityDenied extends SecurityEvent {
  static readonly event = 'verdict.capability_denied';
}
