/**
 * Emitted (through @nestjs/event-emitter, event name {@link EvidenceWriteFailed.event}) when evidence
 * could not be written after a mutating gate had already run: the action's result stands, the record
 * is missing. Route it to your alerting.
 */
export class EvidenceWriteFailed {
  static readonly event = 'verdict.evidence_write_failed';

  constructor(
    readonly capability: string,
    readonly correlationId: string,
    readonly stage: string,
    readonly error: unknown,
  ) {}
}
