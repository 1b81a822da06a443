import { SecurityEvent } from './security-event.js';

/**
 * A receipt exists for this tool call, but its binding (arguments, bound target state, actor, tenant or conversation) differs from what was approved: the approval does not count, a new pending receipt is issued (`require_confirmation`). Not raised when the call's only receipts were superseded by an approver's edit in a batch (ADR 0124). Emitted through @nestjs/event-emitter as {@link ApprovalArgumentsChanged.event}; fingerprints and facts only.
 */
export class ApprovalArgumentsChanged extends SecurityEvent {
  static readonly event = 'verdict.approval_arguments_changed';
}
