import type { DecisionRecord } from './decision-record.js';
import { InvalidEvidenceFilterError } from '../errors/invalid-evidence-filter.error.js';
import { isStorableText } from '../shared/storable-text.js';

/**
 * The keys `EvidenceQuery.list` orders by, and that a cursor holds: `recordedAt` newest first, then `correlationId`
 * ascending, `sequence` descending (the later stage first) and `id` ascending, which makes the order total.
 */
export type EvidenceCursorKeys = Pick<DecisionRecord, 'recordedAt' | 'correlationId' | 'sequence' | 'id'>;

/** What every cursor starts with: its format's version. A string without it is no cursor of this format. */
const PREFIX = 'ev1.';

/** The range of the `sequence` column (a 32-bit integer on every engine): a cursor outside names no stored record. */
const SEQUENCE = { min: -2_147_483_648, max: 2_147_483_647 } as const;

/** The range of `recordedAt` a cursor may hold: that of a filter's dates (the years 0001–9999, UTC). */
const FIRST_INSTANT = Date.parse('0001-01-01T00:00:00.000Z');
const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * The cursor of `record`: pass it as the `after` of the next `EvidenceQuery.list` to list the records that follow
 * it in the list's order, with the same filter. Take it from the last record of a page. An opaque string (URL-safe)
 * that holds only the record's own ordering keys (`recordedAt`, `correlationId`, `sequence`, `id`), which the
 * record already shows: it is not signed, and grants nothing but a position in the order. It names a position,
 * not a stored row: it still pages once that record is pruned.
 *
 * @example
 * const page = await evidence.list({ capability: 'orders.refund', limit: 100 });
 * const next = await evidence.list({ capability: 'orders.refund', limit: 100, after: evidenceCursor(page.at(-1)!) });
 * @throws InvalidEvidenceFilterError for a record no store holds: `recordedAt` outside the years 0001–9999 (UTC), a
 *   `correlationId` or `id` outside 1–64 characters or holding U+0000 or a lone surrogate, a `sequence` that is no
 *   32-bit integer.
 */
export function evidenceCursor(record: EvidenceCursorKeys): string {
  const keys = checkedKeys([
    record.recordedAt instanceof Date ? record.recordedAt.getTime() : NaN,
    record.correlationId,
    record.sequence,
    record.id,
  ]);
  if (keys === undefined)
    throw new InvalidEvidenceFilterError(
      'no cursor names this record: its recordedAt, correlationId, sequence or id is outside what a store holds',
    );
  return encode(keys);
}

/**
 * The keys a cursor holds, or `undefined` when `after` is no cursor {@link evidenceCursor} makes: not a string, not
 * of this format, or any other spelling of its keys than the one it writes.
 */
export function cursorKeys(after: unknown): EvidenceCursorKeys | undefined {
  // The longest cursor a record makes is about 1,100 characters (64 control characters twice, each \u escaped).
  if (typeof after !== 'string' || !after.startsWith(PREFIX) || after.length > 2048) return undefined;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(after.slice(PREFIX.length), 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(decoded)) return undefined;
  const keys = checkedKeys(decoded);
  // One spelling per position: padding, other base64 letters or JSON spacing are refused, not read alike.
  return keys !== undefined && encode(keys) === after ? keys : undefined;
}

/** `values` as cursor keys, or `undefined` when they name no record a store holds. */
function checkedKeys(values: readonly unknown[]): EvidenceCursorKeys | undefined {
  if (values.length !== 4) return undefined;
  const [at, correlationId, sequence, id] = values;
  if (typeof at !== 'number' || !Number.isInteger(at) || at < FIRST_INSTANT || at > LAST_INSTANT) return undefined;
  if (!isKeyText(correlationId) || !isKeyText(id)) return undefined;
  if (typeof sequence !== 'number' || !Number.isInteger(sequence)) return undefined;
  if (sequence < SEQUENCE.min || sequence > SEQUENCE.max) return undefined;
  return { recordedAt: new Date(at), correlationId, sequence, id };
}

/** A correlation id or record id as the columns hold them: 1 to 64 characters, without U+0000 or a lone surrogate. */
const isKeyText = (value: unknown): value is string => isStorableText(value) && value.length > 0 && value.length <= 64;

function encode(keys: EvidenceCursorKeys): string {
  const json = JSON.stringify([keys.recordedAt.getTime(), keys.correlationId, keys.sequence, keys.id]);
  return PREFIX + Buffer.from(json, 'utf8').toString('base64url');
}

/**
 * The order of `EvidenceQuery.list`, over cursor keys: negative when `a` is listed before `b`. Strings compare by
 * UTF-16 code unit, as memory lists.
 */
export function listOrder(a: EvidenceCursorKeys, b: EvidenceCursorKeys): number {
  return (
    b.recordedAt.getTime() - a.recordedAt.getTime() ||
    compareText(a.correlationId, b.correlationId) ||
    b.sequence - a.sequence ||
    compareText(a.id, b.id)
  );
}

const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
