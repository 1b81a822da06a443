/**
 * Emitted (through @nestjs/event-emitter, event name {@link SensitiveDataRedacted.event}) after a permitted
 * release in which structured redaction or free-text scanning changed at least one field. Counts and
 * detector labels only, never the values or where they sat.
 */
export class SensitiveDataRedacted {
  static readonly event = 'verdict.sensitive_data_redacted';

  constructor(
    /** The release record's id. */
    readonly recordId: string,
    readonly correlationId: string,
    /** `kind:name`. */
    readonly source: string,
    /** `connection@trustZone`. */
    readonly destination: string,
    /** Fields replaced by `redact()`. */
    readonly redactedFields: number,
    /** Free-text fields in which `scan()` replaced or tokenized detections. */
    readonly scannedFields: number,
    /** The labels of the detectors that fired while scanning, sorted. */
    readonly detectorLabels: readonly string[],
  ) {}
}
