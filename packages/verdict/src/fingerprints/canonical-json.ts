import canonicalize from 'canonicalize';
import { NonCanonicalValueError } from '../errors/non-canonical-value.error.js';
import { isPlainObject } from '../shared/is-plain-object.js';
import type { JsonValue } from './json-value.js';

/** Keys that mutate prototypes when copied naively; refused anywhere in a fingerprinted value. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** Deeper values are refused with a typed error instead of overflowing the stack. */
export const MAX_CANONICAL_DEPTH = 128;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const child = (path: string, key: string): string =>
  IDENTIFIER.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;

function assertString(value: string, path: string): void {
  if (LONE_SURROGATE.test(value)) throw new NonCanonicalValueError(path, 'string contains a lone surrogate');
}

function assertJson(value: unknown, path: string, ancestors: Set<object>): asserts value is JsonValue {
  switch (typeof value) {
    case 'boolean':
      return;
    case 'string':
      return assertString(value, path);
    case 'number':
      if (!Number.isFinite(value)) throw new NonCanonicalValueError(path, `${value} is not a finite number`);
      return;
    case 'object':
      if (value === null) return;
      break;
    default:
      throw new NonCanonicalValueError(path, `${typeof value} is not JSON`);
  }
  if (ancestors.has(value)) throw new NonCanonicalValueError(path, 'cycle');
  if (ancestors.size >= MAX_CANONICAL_DEPTH)
    throw new NonCanonicalValueError(path, `nested deeper than ${MAX_CANONICAL_DEPTH} levels`);
  ancestors.add(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) throw new NonCanonicalValueError(`${path}[${i}]`, 'sparse array hole');
      assertJson(value[i], `${path}[${i}]`, ancestors);
    }
  } else {
    if (!isPlainObject(value)) {
      throw new NonCanonicalValueError(
        path,
        `${Object.getPrototypeOf(value)?.constructor?.name ?? 'exotic'} instance is not a plain object`,
      );
    }
    if (Object.getOwnPropertySymbols(value).length > 0)
      throw new NonCanonicalValueError(path, 'symbol keys are not JSON');
    for (const key of Object.keys(value)) {
      const at = child(path, key);
      if (FORBIDDEN_KEYS.has(key)) throw new NonCanonicalValueError(at, `key "${key}" is refused`);
      assertString(key, at);
      assertJson((value as Record<string, unknown>)[key], at, ancestors);
    }
  }
  ancestors.delete(value);
}

/** Asserts that `value` is plain JSON as ADR 0002 defines it; throws {@link NonCanonicalValueError} naming the path. */
export function assertCanonicalJson(value: unknown): asserts value is JsonValue {
  assertJson(value, '$', new Set());
}

/** Whether `value` is plain JSON as ADR 0002 defines it (never throws for bad input). */
export function isCanonicalJson(value: unknown): boolean {
  try {
    assertCanonicalJson(value);
    return true;
  } catch (error) {
    if (error instanceof NonCanonicalValueError) return false;
    throw error;
  }
}

/**
 * RFC 8785 (JCS) canonical JSON of a plain JSON value.
 *
 * @throws NonCanonicalValueError for cycles, `undefined`, functions, symbols, BigInt, NaN/±Infinity, Dates,
 *   class instances, lone surrogates and the keys `__proto__`, `constructor`, `prototype`.
 */
export function canonicalJson(value: unknown): string {
  assertCanonicalJson(value);
  return canonicalize(value) as string;
}
