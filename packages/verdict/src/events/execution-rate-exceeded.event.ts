import { SecurityEvent } from './security-event.js';

/**
 * A capability's rate limit refused the call (`throttle` at `rate_limit`). Emitted through @nestjs/event-emitter as {@link ExecutionRateExceeded.event}; fingerprints and facts only.
 */
export class ExecutionRateExceeded extends SecurityEvent {
  static readonly event = 'verdict.execution_rate_exceeded';
}
