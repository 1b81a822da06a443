import { Disposition } from '../decisions/disposition.js';
import { type RecordedDisposition, ShadowDisposition, isShadowDisposition } from '../decisions/shadow-disposition.js';
import { Stage } from '../decisions/stage.js';
import { InvalidEvidenceFilterError } from '../errors/invalid-evidence-filter.error.js';
import { isStorableText } from '../shared/storable-text.js';
import { unknownKeys } from '../shared/unknown-keys.js';
import { type EvidenceCursorKeys, cursorKeys } from './evidence-cursor.js';

/** The default and the largest number of records one `EvidenceQuery.list` call returns. */
export const EVIDENCE_LIST_LIMIT = { default: 100, max: 1000 } as const;

/**
 * Which decision records `EvidenceQuery.list` returns: every given field must match (AND). Each one is served
 * by an index of `verdict_decision_records`.
 *
 * @example
 * { capability: 'orders.refund', disposition: 'deny', since: new Date(Date.now() - 3_600_000) }
 */
export interface EvidenceFilter {
  readonly capability?: string;
  readonly disposition?: RecordedDisposition;
  /** `true`: only shadow records (`would_deny`, `would_confirm`: docs/shadow-mode.md). Default: every record. */
  readonly shadow?: boolean;
  readonly stage?: Stage;
  /** A record's `actorFingerprint` (`actorFingerprint(context)`: sha256 of the actor key), never the actor itself. */
  readonly actorFingerprint?: string;
  /** `sha256(toolCallId)` (`fingerprintString`), never the raw tool-call id. */
  readonly toolCallFingerprint?: string;
  /** Recorded at or after this instant: in the years 0001–9999 (UTC), as `until`. */
  readonly since?: Date;
  /** Recorded strictly before this instant. */
  readonly until?: Date;
  /** At most this many records, newest first. Default 100, at most 1000. */
  readonly limit?: number;
  /**
   * A cursor (`evidenceCursor(record)` of the last record of the page before): only the records listed after that
   * record, in the list's order. Pages through any filter, records of one millisecond included; a string no
   * `evidenceCursor` made is refused.
   */
  readonly after?: string;
}

/** A filter that passed {@link checkedEvidenceFilter}: the limit is resolved, the cursor read as its keys. */
export type CheckedEvidenceFilter = Omit<EvidenceFilter, 'limit' | 'after'> & {
  readonly limit: number;
  readonly after?: EvidenceCursorKeys;
};

/** The fields of an {@link EvidenceFilter}: any other key is refused, never ignored. */
const EVIDENCE_FILTER_FIELDS = [
  'capability',
  'disposition',
  'shadow',
  'stage',
  'actorFingerprint',
  'toolCallFingerprint',
  'since',
  'until',
  'limit',
  'after',
] as const satisfies ReadonlyArray<keyof EvidenceFilter>;

const FINGERPRINT = /^[0-9a-f]{64}$/;

/**
 * The years (UTC) a `since` or `until` may fall in: the years every engine compares alike. SQLite compares its
 * instants as text, where `+010000-…` sorts before `2026-…`, and MariaDB's `DATETIME` ends with 9999; both answered
 * nothing for an `until` past 9999 where memory and PostgreSQL answered the records. A date outside is refused.
 */
export const EVIDENCE_FILTER_YEARS = { min: 1, max: 9999 } as const;

/** Whether `value` is a valid date in {@link EVIDENCE_FILTER_YEARS}. */
function isFilterDate(value: unknown): value is Date {
  if (!(value instanceof Date) || !Number.isFinite(value.getTime())) return false;
  const year = value.getUTCFullYear();
  return year >= EVIDENCE_FILTER_YEARS.min && year <= EVIDENCE_FILTER_YEARS.max;
}

/**
 * Checks the cutoff of an evidence prune (`EvidenceChain.prune(before)`, `verdict evidence prune --before`) for every
 * recorder alike: a valid Date in {@link EVIDENCE_FILTER_YEARS}, as a filter's `since` and `until`. Past 9999 the
 * engines compared it as they do a filter's date: memory and PostgreSQL pruned every record, while SQLite (instants
 * compared as text) and MariaDB (`DATETIME` ends with 9999) found another cut point than the verification, and refused
 * an intact chain as changed since (a false `EvidenceChainBrokenError`). @throws InvalidEvidenceFilterError
 */
export function checkedPruneCutoff(before: Date): Date {
  if (!isFilterDate(before))
    throw new InvalidEvidenceFilterError(
      `a prune's before must be a valid Date in the years 0001 to 9999 (UTC), not ${describeDate(before)}: nothing was pruned`,
    );
  return before;
}

/** A refused cutoff as a message shows it: its instant, or what it is instead. */
function describeDate(value: unknown): string {
  if (!(value instanceof Date)) return value === null ? 'null' : `a ${typeof value}`;
  return Number.isFinite(value.getTime()) ? value.toISOString() : 'an invalid Date';
}

/**
 * Whether `value` is text a lookup may compare: a string of 1 to `max` characters, well-formed and without U+0000
 * ({@link isStorableText}). PostgreSQL fails a comparison with U+0000 (a raw `QueryFailedError`) where the other
 * engines answer nothing; no record holds either, since capability names and correlation ids are Verdict's own.
 */
const isLookupText = (value: unknown, max: number): value is string =>
  isStorableText(value) && value.length > 0 && value.length <= max;

/** Checks `filter` for both adapters alike. @throws InvalidEvidenceFilterError */
export function checkedEvidenceFilter(filter: EvidenceFilter): CheckedEvidenceFilter {
  checkFilterFields(filter, EVIDENCE_FILTER_FIELDS);
  const { capability, disposition, shadow, stage, actorFingerprint, toolCallFingerprint, since, until } = filter;
  const fail = (message: string): never => {
    throw new InvalidEvidenceFilterError(message);
  };
  if (capability !== undefined && !isLookupText(capability, 255))
    fail('capability must be a capability name of 1 to 255 characters, without U+0000 or a lone surrogate');
  oneOf('disposition', disposition, [...Object.values(Disposition), ...Object.values(ShadowDisposition)], fail);
  if (shadow !== undefined && typeof shadow !== 'boolean') fail('shadow must be a boolean');
  if (shadow === true && disposition !== undefined && !isShadowDisposition(disposition))
    fail(`shadow records are would_deny or would_confirm: they never have disposition "${disposition}"`);
  oneOf('stage', stage, Object.values(Stage), fail);
  for (const [name, value] of [
    ['actorFingerprint', actorFingerprint],
    ['toolCallFingerprint', toolCallFingerprint],
  ] as const)
    if (value !== undefined && (typeof value !== 'string' || !FINGERPRINT.test(value)))
      fail(`${name} must be a SHA-256 fingerprint (64 lowercase hex digits), never a raw value`);
  for (const [name, value] of [
    ['since', since],
    ['until', until],
  ] as const)
    if (value !== undefined && !isFilterDate(value))
      fail(`${name} must be a valid Date in the years 0001 to 9999 (UTC)`);
  if (since !== undefined && until !== undefined && since.getTime() >= until.getTime())
    fail('since must be before until');
  const limit = filter.limit ?? EVIDENCE_LIST_LIMIT.default;
  if (!Number.isInteger(limit) || limit < 1 || limit > EVIDENCE_LIST_LIMIT.max)
    fail(`limit must be an integer from 1 to ${EVIDENCE_LIST_LIMIT.max}`);
  const after = filter.after === undefined ? undefined : cursorKeys(filter.after);
  if (filter.after !== undefined && after === undefined)
    fail('after must be a cursor evidenceCursor(record) made, as it made it');
  return { capability, disposition, shadow, stage, actorFingerprint, toolCallFingerprint, since, until, limit, after };
}

/**
 * Refuses a filter that is not an object of `fields` (`null`, an array, a string), or that has a key outside them
 * with a value: read as no filter, such a key would match every record. A key set to `undefined` is no filter, as if
 * absent (a DTO's declared but unset property). @throws InvalidEvidenceFilterError
 */
export function checkFilterFields(filter: unknown, fields: readonly string[]): void {
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) {
    const given = filter == null ? String(filter) : Array.isArray(filter) ? 'an array' : `a ${typeof filter}`;
    throw new InvalidEvidenceFilterError(`a filter must be an object of ${fields.join(', ')}, not ${given}`);
  }
  const unknown = unknownKeys(filter, fields);
  if (unknown.length > 0) {
    const names = unknown.map((key) => JSON.stringify(key)).join(', ');
    throw new InvalidEvidenceFilterError(`unknown filter field ${names}: the fields are ${fields.join(', ')}`);
  }
}

/** Checks a correlation id for `EvidenceQuery.run`. @throws InvalidEvidenceFilterError */
export function checkedCorrelationId(correlationId: string): string {
  if (!isLookupText(correlationId, 64))
    throw new InvalidEvidenceFilterError(
      'correlation id must be a string of 1 to 64 characters, without U+0000 or a lone surrogate',
    );
  return correlationId;
}

function oneOf(name: string, value: unknown, allowed: readonly string[], fail: (message: string) => never): void {
  if (value !== undefined && !allowed.includes(value as string))
    fail(`${name} must be one of ${allowed.join(', ')}, not "${String(value)}"`);
}
