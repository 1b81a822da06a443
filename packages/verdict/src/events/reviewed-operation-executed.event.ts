/**
 * Emitted (through @nestjs/event-emitter, event name {@link ReviewedOperationExecuted.event}) when a worker
 * executed an approved review item (or a `VerdictService.enqueue`d proposal). Tell the user on their next
 * turn: store it with the conversation (`conversationId`) and add it to the agent's input (docs/review-lane.md).
 * The item is named by its fingerprint only, as in evidence; `reviewItemFingerprint(itemId)` gives the same
 * value for an id the application holds (the `itemId` its review endpoint answered).
 */
export class ReviewedOperationExecuted {
  static readonly event = 'verdict.reviewed_operation_executed';

  constructor(
    /** `sha256(item id)`: the evidence's `receiptFingerprint` of the item's records. Never the id. */
    readonly itemFingerprint: string,
    readonly capability: string,
    readonly tenant: string | null,
    /** `context.metadata.conversationId` of the request; `null` when it had none. */
    readonly conversationId: string | number | null,
    /**
     * The correlation id of the deferred run's evidence; of the later run's `executed` dispatch record when a later
     * run settled the item (the executing run could not, or an operator resolved its claim `completed`, ADR 0181).
     */
    readonly correlationId: string,
    /**
     * The executor's output: the application's own data, never shown to the model unreleased. `undefined` when a
     * later run settled the item: the output was not kept.
     */
    readonly output: unknown,
  ) {}
}
