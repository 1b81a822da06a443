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

/**
 * Checks `value` as ADR 0002 defines plain JSON and answers it: itself, or with `copy`, a deep-frozen copy built from
 * one read of each property, so what was checked is what the copy holds (a getter or a proxy answers once). A copy
 * also refuses a non-enumerable property of an object, which the check and a JSON copy would skip but a read sees.
 */
function checkedJson(
  value: unknown,
  trail: Array<string | number>,
  ancestors: Set<object>,
  pathOf: PathNaming,
  copy: boolean,
): JsonValue {
  switch (typeof value) {
    case 'boolean':
      return value;
    case 'string':
      assertString(value, trail, pathOf);
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw new NonCanonicalValueError(pathOf(trail), `${value} is not a finite number`);
      return value;
    case 'object':
      if (value === null) return value;
      break;
    default:
      throw new NonCanonicalValueError(pathOf(trail), `${typeof value} is not JSON`);
  }
  if (ancestors.has(value)) throw new NonCanonicalValueError(pathOf(trail), 'cycle');
  if (ancestors.size >= MAX_CANONICAL_DEPTH)
    throw new NonCanonicalValueError(pathOf(trail), `nested deeper than ${MAX_CANONICAL_DEPTH} levels`);
  ancestors.add(value);
  let checked: JsonValue;
  if (Array.isArray(value)) {
    const length = value.length;
    // Only a copy allocates: the check alone is on every call's path.
    const items: JsonValue[] | undefined = copy ? [] : undefined;
    for (let i = 0; i < length; i++) {
      trail.push(i);
      if (!(i in value)) throw new NonCanonicalValueError(pathOf(trail), 'sparse array hole');
      const item = checkedJson(value[i], trail, ancestors, pathOf, copy);
      items?.push(item);
      trail.pop();
    }
    if (items !== undefined) Object.freeze(items);
    checked = items ?? value;
  } else {
    if (!isPlainObject(value)) {
      throw new NonCanonicalValueError(
        pathOf(trail),
        `${Object.getPrototypeOf(value)?.constructor?.name ?? 'exotic'} instance is not a plain object`,
      );
    }
    if (Object.getOwnPropertySymbols(value).length > 0)
      throw new NonCanonicalValueError(pathOf(trail), 'symbol keys are not JSON');
    const keys = Object.keys(value);
    if (copy) {
      const hidden = Object.getOwnPropertyNames(value).find((key) => !keys.includes(key));
      if (hidden !== undefined)
        throw new NonCanonicalValueError(pathOf([...trail, hidden]), 'a non-enumerable property is not JSON');
    }
    const entries: Record<string, JsonValue> | undefined = copy ? {} : undefined;
    for (const key of keys) {
      trail.push(key);
      if (FORBIDDEN_KEYS.has(key)) throw new NonCanonicalValueError(pathOf(trail), `key "${key}" is refused`);
      assertString(key, trail, pathOf);
      const entry = checkedJson((value as Record<string, unknown>)[key], trail, ancestors, pathOf, copy);
      // A refused key never reaches here, so assigning cannot set a prototype.
      if (entries !== undefined) entries[key] = entry;
      trail.pop();
    }
    if (entries !== undefined) Object.freeze(entries);
    checked = entries ?? (value as JsonValue);
  }
  ancestors.delete(value);
  return checked;
}

/**
 * Asserts that `value` is plain JSON as ADR 0002 defines it; throws {@link NonCanonicalValueError} naming the path as
 * `pathOf` writes it (default: `$.items[2].at`).
 */
export function assertCanonicalJson(value: unknown, pathOf: PathNaming = keyPath): asserts value is JsonValue {
  checkedJson(value, [], new Set(), pathOf, false);
}

/**
 * A deep-frozen copy of `value`, checked as {@link assertCanonicalJson} checks it: each property is read exactly once,
 * and the copy holds what was checked. A getter or a proxy answering something else on a later read, or a caller
 * changing the value afterwards, changes nothing in the copy. An own non-enumerable property is refused too: a read
 * sees it where a JSON copy skips it.
 *
 * @throws NonCanonicalValueError naming the path as `pathOf` writes it, for what `assertCanonicalJson` refuses and for
 *   a non-enumerable property
 */
export function canonicalJsonSnapshot(value: unknown, pathOf: PathNaming = keyPath): JsonValue {
  return checkedJson(value, [], new Set(), pathOf, true);
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
