/**
 * Emitted (through @nestjs/event-emitter, event name {@link ReviewedOperationExecuted.event}) when a worker
 * executed an approved review item (or a `VerdictService.enqueue`d proposal). Tell the user on their next
 * turn: store it with the conversation (`conversationId`) and add it to the agent's input (docs/review-lane.md).
 */
export class ReviewedOperationExecuted {
  static readonly event = 'verdict.reviewed_operation_executed';

  constructor(
    readonly itemId: string,
    readonly capability: string,
    readonly tenant: string | null,
    /** `context.metadata.conversationId` of the request; `null` when it had none. */
    readonly conversationId: string | number | null,
    /** The correlation id of the deferred run's evidence. */
    readonly correlationId: string,
    /** The executor's output: the application's own data, never shown to the model unreleased. */
    readonly output: unknown,
  ) {}
}
