import { type ZodType, toJSONSchema } from 'zod';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { isPlainObject } from '../shared/is-plain-object.js';

/** Zod types whose output is no JSON value: `JSON.stringify` throws on it, or writes something else. */
const NON_JSON_OUTPUT = new Set(['bigint', 'date', 'map', 'set', 'symbol', 'function', 'promise', 'file']);

const REMEDY =
  'An extracted value is read as JSON and labelled by its JSON text, so the schema must output plain JSON ' +
  '(objects, arrays, strings, numbers, booleans, null): convert (to a bigint, a Date, a class) after extracting.';

/**
 * Where `schema`'s output is, by its type, no JSON value: the JSON Schema pointer (`#/properties/amount`) and the
 * Zod type (`bigint`), or `undefined`. A transform's output cannot be read from the schema: the value is checked
 * after parsing ({@link assertJsonOutput}).
 */
export function nonJsonOutputType(schema: ZodType): { readonly at: string; readonly type: string } | undefined {
  let found: { at: string; type: string } | undefined;
  toJSONSchema(schema, {
    io: 'output',
    unrepresentable: 'any',
    override: ({ zodSchema, path }) => {
      const type = (zodSchema as { _zod?: { def?: { type?: unknown } } })._zod?.def?.type;
      if (found === undefined && typeof type === 'string' && NON_JSON_OUTPUT.has(type))
        found = { at: ['#', ...path].join('/'), type };
    },
  });
  return found;
}

/**
 * Throws when `schema`'s output is, by its type, no JSON value: the application's schema is wrong, whatever a
 * model answers. `name` names the schema in the message (a registered schema's name, or its fingerprint).
 * @throws VerdictConfigurationError
 */
export function assertJsonOutputSchema(schema: ZodType, name: string): void {
  const found = nonJsonOutputType(schema);
  if (found === undefined) return;
  throw new VerdictConfigurationError(
    `Quarantine schema ${name} outputs a ${found.type} at ${found.at}, which is not JSON. ${REMEDY}`,
  );
}

/**
 * `JSON.stringify(value)` of a schema's parsed output (`null` for `undefined`), or `VerdictConfigurationError` naming the schema when the
 * output is no plain JSON (a transform to a bigint, a Date, a Map, a class instance, a cycle): what the quarantined
 * model answered was JSON, so only the schema could have made it so.
 * @throws VerdictConfigurationError
 */
export function assertJsonOutput(value: unknown, name: string): string {
  const found = nonJsonValue(value);
  let text: string | undefined;
  try {
    if (found === undefined) text = JSON.stringify(value);
  } catch {
    // A cycle, or a toJSON that throws: no JSON either.
  }
  // A top-level `undefined` reads as JSON `null`, as before.
  if (found === undefined && (text !== undefined || value === undefined)) return text ?? 'null';
  const what = found ?? 'a value JSON cannot write';
  throw new VerdictConfigurationError(`Quarantine schema ${name} output ${what}, which is not JSON. ${REMEDY}`);
}

/**
 * What in `value` is no plain JSON (`a bigint`, `a Date`), or `undefined`; never where, as an object key on the way
 * may be the quarantined model's text. Iterative: a deeply nested answer cannot overflow the stack. `undefined`
 * members are JSON's absent ones.
 */
function nonJsonValue(value: unknown): string | undefined {
  const pending: unknown[] = [value];
  const seen = new Set<object>();
  while (pending.length > 0) {
    const next = pending.pop();
    switch (typeof next) {
      case 'string':
      case 'number':
      case 'boolean':
      case 'undefined':
        continue;
      case 'object':
        break;
      default:
        return `a ${typeof next}`;
    }
    if (next === null || seen.has(next)) continue;
    seen.add(next);
    if (Array.isArray(next)) for (const item of next) pending.push(item);
    else if (isPlainObject(next)) for (const item of Object.values(next)) pending.push(item);
    else return `a ${Object.getPrototypeOf(next)?.constructor?.name ?? 'non-plain object'}`;
  }
  return undefined;
}
