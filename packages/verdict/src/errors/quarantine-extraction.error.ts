import { VerdictError } from './verdict.error.js';

/** Why a quarantined extraction yielded no value. */
export const QuarantineExtractionFailure = {
  /** The handle is not one this process issued for this actor and tenant, or it was forgotten (bounded memory). */
  UnknownHandle: 'unknown_handle',
  /** The quarantined model's answer is not one JSON value. */
  NotJson: 'not_json',
  /** The answer is JSON that does not fit the schema. */
  SchemaMismatch: 'schema_mismatch',
  /** The quarantined model asked for a tool call: it has no tools, and nothing is run. */
  ToolCall: 'tool_call',
} as const;

export type QuarantineExtractionFailure =
  (typeof QuarantineExtractionFailure)[keyof typeof QuarantineExtractionFailure];

/**
 * A quarantined extraction yielded no schema-typed value (docs/quarantine.md). The model's answer never comes
 * back as text: the error carries the failure, the handle's fingerprint and, for a schema mismatch, the paths
 * and codes of the failed checks — never the content, the answer or the handle itself.
 */
export class QuarantineExtractionError extends VerdictError {
  readonly code = 'VERDICT_QUARANTINE_EXTRACTION';

  constructor(
    readonly failure: QuarantineExtractionFailure,
    readonly handleFingerprint: string,
    /**
     * For `schema_mismatch`: `path: code` of each failed check (`amount: invalid_type`); a path segment the schema
     * does not name (a record key the answer wrote) is `#<sha256 prefix>`.
     */
    readonly issues: readonly string[] = [],
  ) {
    super(
      `The quarantined extraction yielded no value (${failure})${issues.length > 0 ? `: ${issues.join('; ')}` : ''}.`,
      { failure, handleFingerprint },
    );
  }
}
