import type { QuarantineExtractionFailure } from '../errors/quarantine-extraction.error.js';

/**
 * Emitted (with `@nestjs/event-emitter`) for every quarantined extraction, whatever its outcome
 * (docs/quarantine.md). Fingerprints and the application's source names only: never the content, the value,
 * the model's answer or the handle itself.
 *
 * @example \@OnEvent(QuarantinedExtraction.event) count(event: QuarantinedExtraction) { ... }
 */
export class QuarantinedExtraction {
  static readonly event = 'verdict.quarantine.extraction';

  constructor(
    /** `extracted`, or why no value came back. */
    readonly outcome: 'extracted' | QuarantineExtractionFailure,
    /** `sha256(handle id)`. */
    readonly handleFingerprint: string,
    /** `kind:name` of each untrusted source of the handle's content; empty for an unknown handle. */
    readonly sources: readonly string[],
    /** `sha256` of each source passage's text (the provenance ledger's content fingerprints). */
    readonly passageFingerprints: readonly string[],
    /** `sha256(JCS(JSON schema))` of the schema asked for. */
    readonly schemaFingerprint: string,
    /** `sha256` of the extracted value's text (`JSON.stringify(value)`), `null` when no value came back. */
    readonly valueFingerprint: string | null,
    /** `sha256(actorKey(actor))`, `null` outside an action context or for an actor without a key. */
    readonly actorFingerprint: string | null,
    /** `sha256(tenant)`, `null` outside an action context or for a context without a tenant. */
    readonly tenantFingerprint: string | null,
    readonly occurredAt: Date,
  ) {}
}
