/** Keys the general canonicalizer refuses; a flat object holding one takes the general path (which throws). */
const REFUSED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** A key order: the keys sorted as RFC 8785 sorts them, each with its `"key":` text. */
interface KeyOrder {
  readonly keys: readonly string[];
  readonly sorted: ReadonlyArray<readonly [key: string, prefix: string]>;
  /** A key the general path must judge (refused, or a lone surrogate). */
  readonly unusual: boolean;
}

/** The last key orders seen: decision and release records each have one shape. */
const orders: KeyOrder[] = [];

function keyOrder(keys: readonly string[]): KeyOrder {
  for (const order of orders)
    if (keys.length === order.keys.length && keys.every((key, i) => key === order.keys[i])) return order;
  const order: KeyOrder = {
    keys,
    sorted: [...keys].sort().map((key) => [key, `${JSON.stringify(key)}:`] as const),
    unusual: keys.some((key) => REFUSED_KEYS.has(key) || !isWellFormed(key)),
  };
  orders.unshift(order);
  orders.length = Math.min(orders.length, 4);
  return order;
}

const isWellFormed = (value: string): boolean => (value as string & { isWellFormed(): boolean }).isWellFormed();

/** A value the flat path cannot take: the general path must judge it. */
const NOT_FLAT = Symbol('not flat');

/** One value of a flat record as its JSON scalar (an instant as its ISO-8601 text), or {@link NOT_FLAT}. */
function flatScalar(value: unknown): string | number | boolean | null | undefined | typeof NOT_FLAT {
  if (value === undefined || value === null) return value;
  if (value instanceof Date) value = value.toISOString();
  switch (typeof value) {
    case 'string':
      return isWellFormed(value) ? value : NOT_FLAT;
    case 'number':
      return Number.isFinite(value) ? value : NOT_FLAT;
    case 'boolean':
      return value;
    default:
      return NOT_FLAT;
  }
}

/**
 * RFC 8785 canonical JSON of a flat record — every value a string, finite number, boolean, `null` or
 * `Date` (as its ISO-8601 text), `undefined` values dropped — the same text `canonicalJson` gives for the
 * record with its instants as text, without the general walk. `undefined` when the record is not flat or
 * holds something the general path must judge (a nested value, a lone surrogate, a refused key): the
 * caller then takes the general path, which canonicalizes it or throws.
 *
 * @example flatCanonicalJson({ b: 1, a: new Date(0) }) // '{"a":"1970-01-01T00:00:00.000Z","b":1}'
 */
export function flatCanonicalJson(record: object): string | undefined {
  const values = record as Record<string, unknown>;
  const order = keyOrder(Object.keys(record));
  if (order.unusual) return undefined;
  let text = '';
  for (const [key, prefix] of order.sorted) {
    const value = flatScalar(values[key]);
    if (value === NOT_FLAT) return undefined;
    if (value !== undefined) text += `,${prefix}${value === null ? 'null' : JSON.stringify(value)}`;
  }
  return `{${text.slice(1)}}`;
}

/**
 * Whether {@link flatCanonicalJson} gives `record` its text (it is flat), checked without building the text.
 * An invalid instant throws here as it does there.
 */
export function isFlatCanonical(record: object): boolean {
  const values = record as Record<string, unknown>;
  const order = keyOrder(Object.keys(record));
  if (order.unusual) return false;
  for (const [key] of order.sorted) if (flatScalar(values[key]) === NOT_FLAT) return false;
  return true;
}
