import { SecurityEvent } from './security-event.js';

/**
 * A capability's spend budget refused the call (`throttle` at `budget`). Emitted through @nestjs/event-emitter as
 * {@link SpendBudgetExceeded.event}; fingerprints and facts only.
 */
export class SpendBudgetExceeded extends SecurityEvent {
  static readonly event = 'verdict.spend_budget_exceeded';
}
