import { SecuritySuiteError } from './security-suite.error.js';

/**
 * What reproduces a run, as a flat object of strings, finite numbers and booleans: model, prompt version,
 * seed, policy revision. Reported verbatim, so never put secrets or adversarial content in it.
 *
 * @example { model: 'llama3.1:8b', prompt: 'storefront-system@4', seed: 7, liveModel: false }
 */
export type Reproduction = { readonly [key: string]: string | number | boolean };

const KEY = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;
const MAX_ENTRIES = 64;
const MAX_STRING = 256;

/** A frozen copy of `value`, checked against the report schema's rules. */
export function checkedReproduction(value: unknown): Reproduction {
  if (
    typeof value !== 'object' ||
    value === null ||
    Array.isArray(value) ||
    ![Object.prototype, null].includes(Object.getPrototypeOf(value))
  ) {
    throw new SecuritySuiteError('the reproduction must be a plain object of strings, numbers and booleans');
  }
  const entries = Object.entries(value);
  if (entries.length > MAX_ENTRIES)
    throw new SecuritySuiteError(`the reproduction may hold at most ${MAX_ENTRIES} entries`);
  const copy: Record<string, string | number | boolean> = {};
  for (const [key, entry] of entries) {
    if (!KEY.test(key))
      throw new SecuritySuiteError(
        `the reproduction key "${key.slice(0, 64)}" must start with a letter and use letters, digits and _ . - (at most 64)`,
      );
    const valid =
      (typeof entry === 'string' && entry.length <= MAX_STRING) ||
      typeof entry === 'boolean' ||
      (typeof entry === 'number' && Number.isFinite(entry));
    if (!valid)
      throw new SecuritySuiteError(
        `the reproduction value of "${key}" must be a string (at most ${MAX_STRING} characters), a finite number or a boolean`,
      );
    copy[key] = entry;
  }
  return Object.freeze(copy);
}
