/**
 * A key that names nobody: `null`, `undefined` or `''`. An actor key, tenant or conversation id like this
 * must never become one trajectory or one approval shared by everyone without a key: callers treat it as a
 * wiring fault.
 */
export const isMissingKey = (value: unknown): value is null | undefined | '' =>
  value === null || value === undefined || value === '';
