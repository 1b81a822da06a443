/**
 * Whether `value` is a promise (or any thenable): the call path awaits only those, so a hook that answers
 * synchronously costs no extra turn of the microtask queue (ADR 0053).
 *
 * @example const ability = isThenable(built) ? await built : built;
 */
export function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
}
