import { isStorableText } from './storable-text.js';

/**
 * The longest attribution — who decided or resolved: an approver id (`by`, `approver.id`), a reviewer id, a claim
 * resolution's `--by` and operator identity. Every column that holds one is `varchar(255)` on every engine, so a
 * longer one is refused before anything is recorded, alike everywhere (it would be stored on SQLite and in memory,
 * and fail with a raw `QueryFailedError` on PostgreSQL and MariaDB).
 */
export const MAX_ATTRIBUTION_LENGTH = 255;

/**
 * Whether `value` is an attribution a row can hold: a non-blank string of at most {@link MAX_ATTRIBUTION_LENGTH}
 * characters, well-formed and without U+0000 ({@link isStorableText}: PostgreSQL refuses U+0000, which SQLite, MariaDB
 * and memory keep).
 */
export const isAttribution = (value: unknown): boolean =>
  typeof value === 'string' && value.trim() !== '' && value.length <= MAX_ATTRIBUTION_LENGTH && isStorableText(value);

/**
 * What an error says an attribution must be, naming what `value` (a non-blank string that is no
 * {@link isAttribution}) got wrong: `of at most 255 characters (got 256)`, or `without U+0000 or a lone surrogate`.
 */
export const attributionRule = (value: string): string =>
  value.length > MAX_ATTRIBUTION_LENGTH
    ? `of at most ${MAX_ATTRIBUTION_LENGTH} characters (got ${value.length})`
    : 'without U+0000 or a lone surrogate';
