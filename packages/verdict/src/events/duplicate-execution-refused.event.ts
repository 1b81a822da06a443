import { SecurityEvent } from './security-event.js';

/**
 * The execution claim refused a duplicate of an operation already claimed, completed or indeterminate (deny at `execution_claim`). Emitted through @nestjs/event-emitter as {@link DuplicateExecutionRefused.event}; fingerprints and facts only.
 */
export class DuplicateExecutionRefused extends SecurityEvent {
  static readonly event = 'verdict.duplicate_execution_refused';
}
