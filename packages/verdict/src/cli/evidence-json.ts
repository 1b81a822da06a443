import type { DecisionRecord } from '../evidence/decision-record.js';

/** A decision record for `--json` output: the record's own fields, instants as ISO 8601 UTC strings. */
export function evidenceJson(record: DecisionRecord): Record<string, unknown> {
  return {
    ...record,
    recordedAt: record.recordedAt.toISOString(),
    rateLimitResetAt: record.rateLimitResetAt?.toISOString() ?? null,
  };
}
