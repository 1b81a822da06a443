import { VerdictError } from './verdict.error.js';

/**
 * A rate-limit store (`RateLimitStore.consume`) was given a request no engine counts alike: a `limit` that is not a
 * whole number from 0 to 2,147,483,647 (`MAX_RATE_LIMIT`), a `windowSeconds` that is not a whole number of seconds
 * from 1 to 100 years, or a `windowStart` that is not a valid `Date`. A fraction admitted one unit more than the
 * limit, `NaN` refused with `remaining: NaN`, and a limit past 32 bits or an invalid date failed mid-statement on some
 * engines only. Thrown before the store touches anything: nothing is counted. A fault of the caller (a custom gate,
 * or a store called directly), never a `throttle`; Verdict's own gates check their limits and windows at boot.
 */
export class InvalidRateLimitRequestError extends VerdictError {
  readonly code = 'VERDICT_INVALID_RATE_LIMIT_REQUEST';

  constructor(field: 'limit' | 'windowSeconds' | 'windowStart', value: unknown) {
    super(
      `A rate-limit store was asked to consume with ${field} ${describe(value)}: limit must be a whole number from 0 to 2,147,483,647, windowSeconds a whole number from 1 to 3,155,760,000 and windowStart a valid Date. Nothing was counted.`,
      { field },
    );
  }
}

function describe(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (value instanceof Date) return 'an invalid Date';
  return value === null ? 'null' : `a ${typeof value}`;
}
