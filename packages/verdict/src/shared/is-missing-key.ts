/**
 * A key that names nobody: `null`, `undefined`, or a string that is empty or only whitespace (a blank key).
 * An actor key, tenant or conversation id like this must never become one trajectory, one approval or one
 * fingerprint shared by everyone without a key: callers treat it as a wiring fault and fail closed with their
 * typed error. The one rule for every such key (`actorKeyText`, receipt principals, trajectory scopes).
 */
export const isMissingKey = (value: unknown): value is null | undefined | string =>
  value === null || value === undefined || (typeof value === 'string' && value.trim() === '');
