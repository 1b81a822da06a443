/**
 * Which of `methods` `store` does not have as functions: all of them for `null`, `undefined` or anything that is not
 * an object. What a boot check names when a module option that must be a store is not one (a `forRootAsync` factory
 * that returned `null`, a `{}`), instead of a `TypeError` at the first call.
 */
export function missingMethods<M extends string>(store: unknown, methods: readonly M[]): M[] {
  const members = typeof store === 'object' && store !== null ? (store as Record<string, unknown>) : {};
  return methods.filter((method) => typeof members[method] !== 'function');
}
