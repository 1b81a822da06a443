/**
 * A promise already fulfilled with `undefined`, shared: what a method typed `Promise<void>` answers when it has
 * finished synchronously, without the promise an async function would create on every call. A fulfilled promise
 * cannot change, so one serves every caller.
 */
export const SETTLED: Promise<void> = Promise.resolve();
