import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { project } from './projection.js';
import { FORBIDDEN_KEYS, type ReleasePath, WILDCARD, coversPath, parseReleasePaths } from './release-path.js';

/** A payload tree; leaves get unique marker values when materialized. */
type Tree = { leaf: true } | { object: Array<[string, Tree]> } | { array: Tree[] };

const KEYS = ['a', 'b', 'c', 'id', '0', '1', 'a.b', '*', '__proto__', 'constructor', 'prototype'];

const { tree } = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant<Tree>({ leaf: true }),
    fc
      .uniqueArray(fc.tuple(fc.constantFrom(...KEYS), tie('tree')), { selector: ([key]) => key, maxLength: 4 })
      .map((object): Tree => ({ object })),
    fc.array(tie('tree'), { maxLength: 3 }).map((array): Tree => ({ array })),
  ),
}));

interface Leaf {
  readonly path: string[];
  /** Which segments of `path` are array indices (projection may renumber those). */
  readonly indices: boolean[];
  readonly value: string;
}

/** Builds the payload with `defineProperty` (own `__proto__` keys included) and lists every leaf with its path. */
function materialize(root: Tree): { payload: Record<string, unknown>; leaves: Leaf[] } {
  const leaves: Leaf[] = [];
  const build = (node: Tree, path: string[], indices: boolean[]): unknown => {
    if ('leaf' in node) {
      const value = `<<${String(leaves.length).padStart(6, '0')}>>`;
      leaves.push({ path, indices, value });
      return value;
    }
    if ('array' in node) return node.array.map((item, i) => build(item, [...path, String(i)], [...indices, true]));
    const object: Record<string, unknown> = {};
    for (const [key, item] of node.object) {
      Object.defineProperty(object, key, {
        value: build(item, [...path, key], [...indices, false]),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return object;
  };
  const payload =
    'object' in root ? (build(root, [], []) as Record<string, unknown>) : { root: build(root, ['root'], [false]) };
  return { payload, leaves };
}

/** Allowlist paths: some drawn from real leaf paths (segments randomly widened to *), some invented. */
const allowlist = (leaves: Leaf[]) =>
  fc.array(
    fc.oneof(
      fc
        .constantFrom(...(leaves.length > 0 ? leaves : [{ path: ['a'], value: '' }]))
        .chain(({ path }) =>
          fc
            .tuple(
              fc.nat({ max: path.length - 1 }),
              fc.array(fc.boolean(), { minLength: path.length, maxLength: path.length }),
            )
            .map(([cut, widen]) =>
              path
                .slice(0, cut + 1)
                .map((segment, i) =>
                  widen[i] || segment.includes('.') || FORBIDDEN_KEYS.has(segment) ? WILDCARD : segment,
                ),
            ),
        ),
      fc.array(fc.constantFrom('a', 'b', 'c', 'id', '0', '1', 'x', WILDCARD), { minLength: 1, maxLength: 4 }),
    ),
    { minLength: 1, maxLength: 4 },
  );

/** Every string value anywhere in a released payload, with where it sits. */
function releasedLeaves(
  value: unknown,
  path: string[] = [],
  into: Map<string, string[]> = new Map(),
): Map<string, string[]> {
  if (typeof value === 'string') into.set(value, path);
  else if (Array.isArray(value)) value.forEach((item, i) => releasedLeaves(item, [...path, String(i)], into));
  else if (typeof value === 'object' && value !== null)
    Object.entries(value).forEach(([key, item]) => releasedLeaves(item, [...path, key], into));
  return into;
}

describe('project (property)', () => {
  it('releases exactly the leaves the allowlist covers, and no value from anywhere else', () => {
    fc.assert(
      fc.property(
        tree.map(materialize).chain((input) => fc.tuple(fc.constant(input), allowlist(input.leaves))),
        ([{ payload, leaves }, paths]) => {
          const only: readonly ReleasePath[] = parseReleasePaths(
            paths.map((segments) => segments.join('.')),
            'only()',
          );
          const released = project(payload, {
            only,
            redact: [],
            replacement: '[REDACTED]',
            scan: [],
            scrub: (text) => text,
            redactKey: () => undefined,
            scanKey: () => undefined,
          });
          const text = JSON.stringify(released.payload);
          const placed = releasedLeaves(released.payload);
          for (const leaf of leaves) {
            const covered =
              only.some((path) => coversPath(path, leaf.path)) &&
              !leaf.path.some((segment) => FORBIDDEN_KEYS.has(segment));
            if (!covered) {
              expect(text).not.toContain(leaf.value);
              continue;
            }
            // Released at the same path, but for array positions, which may be renumbered.
            const at = placed.get(leaf.value);
            expect(at?.length).toBe(leaf.path.length);
            leaf.path.forEach((segment, i) => {
              if (!leaf.indices[i]) expect(at?.[i]).toBe(segment);
            });
          }
          // Every released value is some covered leaf's value: nothing invented, nothing from an unreleased path.
          const coveredValues = new Set(
            leaves.filter((leaf) => only.some((path) => coversPath(path, leaf.path))).map((leaf) => leaf.value),
          );
          for (const value of placed.keys()) expect(coveredValues.has(value)).toBe(true);
          expect(Object.prototype).not.toHaveProperty('polluted');
        },
      ),
      { numRuns: 500 },
    );
  });
});
