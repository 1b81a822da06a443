import canonicalize from 'canonicalize';
import { NonCanonicalValueError } from '../errors/non-canonical-value.error.js';
import { isPlainObject } from '../shared/is-plain-object.js';
import { isWellFormed } from '../shared/storable-text.js';
import { shallowCanonicalJson } from './flat-canonical-json.js';
import type { JsonValue } from './json-value.js';

/** Keys that mutate prototypes when copied naively; refused anywhere in a fingerprinted value. */
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
/** Deeper values are refused with a typed error instead of overflowing the stack. */
export const MAX_CANONICAL_DEPTH = 128;

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** How an error names where a value lies, from the keys and indexes walked to it: built only for an error message. */
export type PathNaming = (trail: ReadonlyArray<string | number>) => string;

/** The JSONPath-like path of the keys and indexes walked so far: `$.items[2].at`. */
const keyPath: PathNaming = (trail) =>
  trail.reduce<string>(
    (path, step) =>
      typeof step === 'number'
        ? `${path}[${step}]`
        : IDENTIFIER.test(step)
          ? `${path}.${step}`
          : `${path}[${JSON.stringify(step)}]`,
    '$',
  );

function assertString(value: string, trail: ReadonlyArray<string | number>, pathOf: PathNaming): void {
  if (!isWellFormed(value)) throw new NonCanonicalValueError(pathOf(trail), 'string contains a lone surrogate');
}

function assertJson(
  value: unknown,
  trail: Array<string | number>,
  ancestors: Set<object>,
  pathOf: PathNaming,
): asserts value is JsonValue {
  switch (typeof value) {
    case 'boolean':
      return;
    case 'string':
      return assertString(value, trail, pathOf);
    case 'number':
      if (!Number.isFinite(value)) throw new NonCanonicalValueError(pathOf(trail), `${value} is not a finite number`);
      return;
    case 'object':
      if (value === null) return;
      break;
    default:
      throw new NonCanonicalValueError(pathOf(trail), `${typeof value} is not JSON`);
  }
  if (ancestors.has(value)) throw new NonCanonicalValueError(pathOf(trail), 'cycle');
  if (ancestors.size >= MAX_CANONICAL_DEPTH)
    throw new NonCanonicalValueError(pathOf(trail), `nested deeper than ${MAX_CANONICAL_DEPTH} levels`);
  ancestors.add(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      trail.push(i);
      if (!(i in value)) throw new NonCanonicalValueError(pathOf(trail), 'sparse array hole');
      assertJson(value[i], trail, ancestors, pathOf);
      trail.pop();
    }
  } else {
    if (!isPlainObject(value)) {
      throw new NonCanonicalValueError(
        pathOf(trail),
        `${Object.getPrototypeOf(value)?.constructor?.name ?? 'exotic'} instance is not a plain object`,
      );
    }
    if (Object.getOwnPropertySymbols(value).length > 0)
      throw new NonCanonicalValueError(pathOf(trail), 'symbol keys are not JSON');
    for (const key of Object.keys(value)) {
      trail.push(key);
      if (FORBIDDEN_KEYS.has(key)) throw new NonCanonicalValueError(pathOf(trail), `key "${key}" is refused`);
      assertString(key, trail, pathOf);
      assertJson((value as Record<string, unknown>)[key], trail, ancestors, pathOf);
      trail.pop();
    }
  }
  ancestors.delete(value);
}

/**
 * Asserts that `value` is plain JSON as ADR 0002 defines it; throws {@link NonCanonicalValueError} naming the path as
 * `pathOf` writes it (default: `$.items[2].at`).
 */
export function assertCanonicalJson(value: unknown, pathOf: PathNaming = keyPath): asserts value is JsonValue {
  assertJson(value, [], new Set(), pathOf);
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
  const shallow = shallowCanonicalJson(value);
  if (shallow !== undefined) return shallow;
  assertCanonicalJson(value);
  return canonicalize(value) as string;
}
