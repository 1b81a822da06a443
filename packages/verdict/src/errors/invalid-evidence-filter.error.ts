import { VerdictError } from './verdict.error.js';

/**
 * An evidence query that cannot be answered as written: a field the filter does not have (`correlationId`,
 * `stream`: never ignored, which would match every record) or a filter that is no object, an unknown disposition or
 * stage, a fingerprint that is not 64 lowercase hex digits (a raw tool-call id is refused, never hashed for you), an
 * invalid date, `since` not before `until`, a limit outside 1–1000 (or a CLI `--limit` not in decimal digits: `1e2`),
 * an `after` that is no cursor `evidenceCursor(record)` made. Nothing is read. A prune's cutoff (`EvidenceChain.prune(before)`) outside the years 0001–9999 (UTC), or an invalid
 * Date, is refused with it too: nothing is pruned or signed.
 */
export class InvalidEvidenceFilterError extends VerdictError {
  readonly code = 'VERDICT_INVALID_EVIDENCE_FILTER';
}
