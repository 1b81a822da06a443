import { NonCanonicalValueError } from '../errors/non-canonical-value.error.js';
import { canonicalJsonSnapshot } from '../fingerprints/canonical-json.js';
import type { JsonObject, JsonValue } from '../fingerprints/json-value.js';
import { isPlainObject } from '../shared/is-plain-object.js';

/**
 * The facts an approver's or reviewer's CASL ability is checked against, as a capability's `subject` callback answered
 * them, checked before a receipt or review item is issued with them: `null` when it answered none (`undefined` or
 * `null`), else a deep-frozen snapshot of plain JSON values (ADR 0002), which every store keeps and answers alike
 * (ADR 0201). The snapshot is what was checked: each property is read once (a getter answers once), and the caller's
 * object changed afterwards changes nothing kept. `path` names the callback in the error: `['subject']`
 * (`$.subject.placed`), `['reviewer', 'subject']`.
 *
 * @throws NonCanonicalValueError naming the path for anything else: an array or a string, or an object holding a
 *   `Date`, a BigInt, an `undefined` value, a class instance, a function, `NaN` or a non-enumerable property (an
 *   application fault)
 * @example subjectFacts({ tenantId: 'acme', placedAt: order.placedAt.toISOString() }, ['subject'])
 */
export function subjectFacts(facts: unknown, path: readonly [string, ...string[]]): JsonObject | null {
  if (facts === undefined || facts === null) return null;
  if (!isPlainObject(facts)) {
    const what = Array.isArray(facts)
      ? 'an array'
      : typeof facts === 'object'
        ? `${Object.getPrototypeOf(facts)?.constructor?.name ?? 'exotic'} instance`
        : `${typeof facts}`;
    throw new NonCanonicalValueError(`$.${path.join('.')}`, `${what} is not a plain JSON object of facts`);
  }
  // Walked under its name, so the error names the callback's key: `$.subject.placed`, `$.reviewer.subject.at`.
  const snapshot = canonicalJsonSnapshot(path.reduceRight<unknown>((inner, key) => ({ [key]: inner }), facts));
  return path.reduce<JsonValue>((outer, key) => (outer as JsonObject)[key]!, snapshot) as JsonObject;
}
