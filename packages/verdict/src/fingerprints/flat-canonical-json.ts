import { isPlainObject } from '../shared/is-plain-object.js';
import { isWellFormed } from '../shared/storable-text.js';

/** Keys the general canonicalizer refuses; a flat object holding one takes the general path (which throws). */
const REFUSED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** A key order: the keys sorted as RFC 8785 sorts them, each with its `"key":` text. */
interface KeyOrder {
  readonly keys: readonly string[];
  readonly sorted: ReadonlyArray<readonly [key: string, prefix: string]>;
  /** A key the general path must judge (refused, or a lone surrogate). */
  readonly unusual: boolean;
  /**
   * Per sorted key, the last primitive value {@link flatCanonicalJson} wrote for it and its `,"key":value` text:
   * the records of one run share most of their values (correlation id, stream, fingerprints).
   */
  readonly last: unknown[];
  readonly lastText: string[];
}

/** The last key orders seen: decision and release records each have one shape, and so do most arguments and identities. */
const orders: KeyOrder[] = [];

function keyOrder(keys: readonly string[]): KeyOrder {
  for (const order of orders)
    if (keys.length === order.keys.length && keys.every((key, i) => key === order.keys[i])) return order;
  const order: KeyOrder = {
    keys,
    sorted: [...keys].sort().map((key) => [key, `${JSON.stringify(key)}:`] as const),
    unusual: keys.some((key) => REFUSED_KEYS.has(key) || !isWellFormed(key)),
    last: [],
    lastText: [],
  };
  orders.unshift(order);
  orders.length = Math.min(orders.length, 8);
  return order;
}

/** Whether `value` is a JSON scalar canonical JSON takes as it is: a well-formed string, a finite number, a boolean or null. */
function isScalar(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
      return isWellFormed(value);
    case 'number':
      return Number.isFinite(value);
    case 'boolean':
      return true;
    default:
      return value === null;
  }
}

/**
 * Whether {@link flatCanonicalJson} takes `value`, a record's value, as it is: a JSON scalar (a well-formed string,
 * a finite number, a boolean, null), `undefined` (dropped), or a valid instant whose ISO text is Date's own.
 */
export function isFlatValue(value: unknown): boolean {
  if (value instanceof Date)
    return (
      value.toISOString === Date.prototype.toISOString && !Number.isNaN(Date.prototype.getTime.call(value) as number)
    );
  return value === undefined || isScalar(value);
}

/** A value the flat path cannot take: the general path must judge it. */
const NOT_FLAT = Symbol('not flat');

/** One value of a flat record as its JSON scalar (an instant as its ISO-8601 text), or {@link NOT_FLAT}. */
function flatScalar(value: unknown): unknown {
  if (value === undefined) return value;
  const scalar = value instanceof Date ? value.toISOString() : value;
  return isScalar(scalar) ? scalar : NOT_FLAT;
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
  const { sorted, last, lastText } = order;
  let text = '';
  for (let i = 0; i < sorted.length; i++) {
    const [key, prefix] = sorted[i]!;
    const field = values[key];
    // The same primitive as last time has the same text, already checked (an object, a Date, may have changed).
    if (field === last[i] && typeof field !== 'object' && field !== undefined) {
      text += lastText[i];
      continue;
    }
    const value = flatScalar(field);
    if (value === NOT_FLAT) return undefined;
    if (value === undefined) continue;
    const part = `,${prefix}${value === null ? 'null' : JSON.stringify(value)}`;
    if (typeof field !== 'object') {
      last[i] = field;
      lastText[i] = part;
    }
    text += part;
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
  // A scalar or one of Date's own valid instants is judged without building its text; anything else as the text is.
  for (const [key] of order.sorted) {
    const value = values[key];
    if (!isFlatValue(value) && flatScalar(value) === NOT_FLAT) return false;
  }
  return true;
}

/**
 * RFC 8785 canonical JSON of a plain object whose values are JSON scalars or plain objects of JSON scalars
 * (arguments, identities, actor keys) — exactly the text `canonicalJson` gives it, without its general walk.
 * `undefined` for anything else, which `canonicalJson` judges itself (and canonicalizes or refuses).
 *
 * @example shallowCanonicalJson({ b: 1, a: { d: null, c: 'x' } }) // '{"a":{"c":"x","d":null},"b":1}'
 */
export function shallowCanonicalJson(value: unknown, nested = false): string | undefined {
  if (!isPlainObject(value) || Object.getOwnPropertySymbols(value).length > 0) return undefined;
  const order = keyOrder(Object.keys(value));
  if (order.unusual) return undefined;
  let text = '';
  for (const [key, prefix] of order.sorted) {
    const field = value[key];
    const part =
      typeof field === 'object' && field !== null
        ? nested
          ? undefined
          : shallowCanonicalJson(field, true)
        : isScalar(field)
          ? JSON.stringify(field)
          : undefined;
    if (part === undefined) return undefined;
    text += `,${prefix}${part}`;
  }
  return `{${text.slice(1)}}`;
}
