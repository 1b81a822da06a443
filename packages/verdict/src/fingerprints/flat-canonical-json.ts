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
    let value = values[key];
    if (value === undefined) continue;
    if (value === null) {
      text += `,${prefix}null`;
      continue;
    }
    if (value instanceof Date) value = value.toISOString();
    switch (typeof value) {
      case 'string':
        if (!isWellFormed(value)) return undefined;
        break;
      case 'number':
        if (!Number.isFinite(value)) return undefined;
        break;
      case 'boolean':
        break;
      default:
        return undefined;
    }
    text += `,${prefix}${JSON.stringify(value)}`;
  }
  return `{${text.slice(1)}}`;
}
