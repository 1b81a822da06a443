import type { Assertion } from './assertion.js';

/**
 * The names of the built-in assertions, as their ids begin (`not-executed`, `decision-is:deny:proposal`,
 * `forbidden-state-not-reached`): a case's claim is its assertion ids (ADR 0175), so only a built-in may carry one,
 * or an id under one (`<name>:…`).
 */
const BUILT_IN_NAMES = [
  'decision-is',
  'executed',
  'not-executed',
  'tool-attempted-but-blocked',
  'tool-executed',
  'tool-not-executed',
  'tool-call-count',
  'no-side-effects',
  'side-effect-occurred',
  'output-excludes',
  'output-includes',
  'forbidden-state-not-reached',
];

/**
 * The assertion objects this package built. Module-private, and identity rather than a mark on the object: a mark
 * could be copied onto a hand-written object, membership cannot.
 */
const builtIns = new WeakSet<Assertion>();

/**
 * Records `assertion` as a built-in and freezes it, so its `evaluate` stays the one the package wrote. Only the
 * built-in factories call this; it is not exported from the package.
 */
export function builtIn(assertion: Assertion): Assertion {
  builtIns.add(Object.freeze(assertion));
  return assertion;
}

/** Whether `assertion` is an object a built-in factory returned (not a copy, proxy or object derived from one). */
export function isBuiltIn(assertion: Assertion): boolean {
  return builtIns.has(assertion);
}

/**
 * The built-in name `id` is reserved by — the name itself, or the name it begins with followed by a colon — or `null`
 * when any assertion may carry it.
 */
export function reservedNameOf(id: string): string | null {
  return BUILT_IN_NAMES.find((name) => id === name || id.startsWith(`${name}:`)) ?? null;
}
