/**
 * Whether `value` is well-formed UTF-16: no lone surrogate (`String.prototype.isWellFormed`, Node 20+). Canonical JSON
 * takes only such strings; a lone surrogate has no UTF-8 form, so no hash or database column keeps it as it is.
 */
export const isWellFormed = (value: string): boolean => (value as string & { isWellFormed(): boolean }).isWellFormed();

/**
 * Whether `value` is text every store keeps and finds as it is, alike on every engine: a string, well-formed
 * ({@link isWellFormed}) and without U+0000 (PostgreSQL's `text` and `varchar` refuse it; SQLite, MariaDB and memory
 * keep it). The rule of every identifier that comes from outside and reaches a column or a `WHERE`: a tool-call id,
 * a review item, receipt, batch or claim id, an attribution (ADR 0186). Reasons are made storable instead
 * (`storableReason`).
 */
export const isStorableText = (value: unknown): value is string =>
  typeof value === 'string' && !value.includes('\0') && isWellFormed(value);
