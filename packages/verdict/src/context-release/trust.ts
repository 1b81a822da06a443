/**
 * Whether the released data may carry instructions the application did not write. Separate from origin
 * and sensitivity: a trusted customer record can still be PII. A release policy allows trust levels explicitly.
 */
export const Trust = {
  Trusted: 'trusted',
  Untrusted: 'untrusted',
} as const;

export type Trust = (typeof Trust)[keyof typeof Trust];

const TRUST_LEVELS: ReadonlySet<unknown> = new Set(Object.values(Trust));

/** Whether `value` is one of the {@link Trust} levels. */
export function isTrust(value: unknown): value is Trust {
  return TRUST_LEVELS.has(value);
}
