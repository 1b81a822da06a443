import { NonCanonicalValueError } from '../errors/non-canonical-value.error.js';
import { MAX_CANONICAL_DEPTH } from '../fingerprints/canonical-json.js';
import { fingerprintString } from '../fingerprints/fingerprint.js';
import { isPlainObject } from '../shared/is-plain-object.js';

/**
 * The fingerprint a pin keeps of a tool's description or input schema: SHA-256 (hex) of its RFC 8785 (JCS) text,
 * over any JSON an MCP server's `tools/list` carries (ADR 0150). Every value `fingerprint` accepts has the very same
 * fingerprint here (lockfiles already written keep matching); beyond it, the keys `__proto__`, `constructor` and
 * `prototype` are keys like any other (a pin is text, never used as an object), and a lone surrogate is written as
 * its `\udXXX` escape, as `JSON.stringify` writes it. Written here rather than with the `canonicalize` package
 * that `canonicalJson` uses: that package (4.x) throws for a lone surrogate, which would make a stored pin of such a
 * description unreadable; for every value it accepts the text is the same (`mcp-tool-pin.spec.ts` pins both).
 *
 * @throws NonCanonicalValueError for what is not JSON (`undefined`, functions, NaN, class instances, sparse arrays,
 *   cycles) or is nested deeper than 128 levels: such a tool is `unpinnable`.
 */
export function pinFingerprint(value: unknown): string {
  return fingerprintString(pinJson(value, '$', new Set()));
}

/** The JCS text of `value` (keys sorted by UTF-16 code units, strings and numbers as `JSON.stringify` writes them). */
function pinJson(value: unknown, path: string, ancestors: Set<object>): string {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new NonCanonicalValueError(path, `${value} is not a finite number`);
      return JSON.stringify(value);
    case 'object':
      if (value === null) return 'null';
      break;
    default:
      throw new NonCanonicalValueError(path, `${typeof value} is not JSON`);
  }
  if (ancestors.has(value)) throw new NonCanonicalValueError(path, 'cycle');
  if (ancestors.size >= MAX_CANONICAL_DEPTH)
    throw new NonCanonicalValueError(path, `nested deeper than ${MAX_CANONICAL_DEPTH} levels`);
  ancestors.add(value);
  let text: string;
  if (Array.isArray(value)) {
    const items: string[] = [];
    for (let i = 0; i < value.length; i++) {
      if (!(i in value)) throw new NonCanonicalValueError(`${path}[${i}]`, 'sparse array hole');
      items.push(pinJson(value[i], `${path}[${i}]`, ancestors));
    }
    text = `[${items.join(',')}]`;
  } else {
    if (!isPlainObject(value) || Object.getOwnPropertySymbols(value).length > 0)
      throw new NonCanonicalValueError(path, 'not a plain JSON object');
    const members = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${pinJson(value[key], `${path}[${JSON.stringify(key)}]`, ancestors)}`);
    text = `{${members.join(',')}}`;
  }
  ancestors.delete(value);
  return text;
}
