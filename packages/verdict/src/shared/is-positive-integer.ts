/**
 * A whole number from 1 up, within the safe integer range: what a configured count or bound must be (a rate limit's
 * `limit`, a confirmation's `maxPending`, a quarantine's `capacity`, a call ceiling). `NaN`, `Infinity`, a fraction, a
 * numeric string or `0` is not one.
 */
export const isPositiveInteger = (value: unknown): value is number =>
  typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
