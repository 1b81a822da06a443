/**
 * The keys of `value` outside `allowed` that hold a value: a key set to `undefined` counts as absent (a DTO's declared
 * but unset property, a factory's unset setting), as everywhere Verdict reads an options object.
 */
export function unknownKeys(value: object, allowed: readonly string[]): string[] {
  return Object.entries(value)
    .filter(([key, held]) => held !== undefined && !allowed.includes(key))
    .map(([key]) => key);
}
