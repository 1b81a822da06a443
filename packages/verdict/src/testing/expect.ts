import assert from 'node:assert/strict';

/**
 * The assertions of the contract suites, on `node:assert` alone, so the suites need no runner's `expect`.
 * The semantics are Jest's for the matchers the suites use: `toEqual` ignores properties whose value is
 * `undefined` and the prototype of plain records (a TypeORM entity equals the object of its columns),
 * compares dates by instant and sets by members; `toMatchObject` compares only the properties the
 * expectation names, recursively, with arrays of equal length. A failure throws `node:assert`'s
 * `AssertionError`, which every runner reports with its diff.
 */
export function expect<T>(actual: T): Matchers<T> {
  return matchers(actual, false);
}

interface Matchers<T> {
  toBe(expected: T | unknown): void;
  toBeNull(): void;
  toEqual(expected: unknown): void;
  toMatchObject(expected: object): void;
  toHaveLength(length: number): void;
  toContain(item: unknown): void;
  readonly not: Pick<Matchers<T>, 'toBe' | 'toContain'>;
  readonly resolves: AsyncMatchers;
}

type AsyncMatchers = { readonly [K in 'toEqual' | 'toMatchObject']: (expected: any) => Promise<void> };

function matchers<T>(actual: T, negated: boolean): Matchers<T> {
  return {
    toBe: (expected) => (negated ? assert.notStrictEqual(actual, expected) : assert.strictEqual(actual, expected)),
    toBeNull: () => assert.strictEqual(actual, null),
    toEqual: (expected) => assert.deepStrictEqual(comparable(actual), comparable(expected)),
    toMatchObject: (expected) => assert.deepStrictEqual(projected(actual, expected), comparable(expected)),
    toHaveLength: (length) => assert.strictEqual((actual as { length?: unknown } | null)?.length, length),
    toContain: (item) => {
      const contained =
        typeof actual === 'string' ? actual.includes(String(item)) : (actual as unknown[]).includes(item);
      assert.ok(
        contained !== negated,
        `Expected ${inspectShort(actual)} ${negated ? 'not ' : ''}to contain ${inspectShort(item)}`,
      );
    },
    get not() {
      return matchers(actual, true);
    },
    get resolves() {
      return {
        toEqual: async (expected: unknown) => matchers(await actual, false).toEqual(expected),
        toMatchObject: async (expected: object) => matchers(await actual, false).toMatchObject(expected),
      };
    },
  };
}

/** `value` as `toEqual` sees it: records as plain objects without `undefined` properties. */
function comparable(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || value instanceof Date || ArrayBuffer.isView(value)) return value;
  if (Array.isArray(value)) return Array.from(value, comparable);
  if (value instanceof Set) return new Set([...value].map(comparable));
  if (value instanceof Map) return new Map([...value].map(([key, item]) => [key, comparable(item)]));
  const record: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) if (item !== undefined) record[key] = comparable(item);
  return record;
}

/** `actual` cut down to the properties `expected` names, so a `deepStrictEqual` against it is `toMatchObject`. */
function projected(actual: unknown, expected: unknown): unknown {
  if (!isRecordOrArray(expected) || typeof actual !== 'object' || actual === null) return comparable(actual);
  if (Array.isArray(expected)) {
    return Array.isArray(actual) && actual.length === expected.length
      ? actual.map((item, i) => projected(item, expected[i]))
      : comparable(actual);
  }
  if (Array.isArray(actual) || !isRecordOrArray(actual)) return comparable(actual);
  const record: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(expected)) {
    if (item !== undefined && key in actual) record[key] = projected((actual as Record<string, unknown>)[key], item);
  }
  return record;
}

function isRecordOrArray(value: unknown): value is object {
  return (
    typeof value === 'object' &&
    value !== null &&
    !(value instanceof Date) &&
    !(value instanceof Set) &&
    !(value instanceof Map) &&
    !ArrayBuffer.isView(value)
  );
}

function inspectShort(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : String(JSON.stringify(value) ?? value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
