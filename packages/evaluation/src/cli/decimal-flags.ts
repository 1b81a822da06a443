import { InvalidFlagError } from './invalid-flag.error.js';

/** A positive integer as JSON writes one: decimal digits, no sign, space, leading zero, point or exponent. */
const POSITIVE_INTEGER = /^[1-9]\d*$/;
/** A number as JSON writes one, without sign or exponent: `0`, `1`, `0.05`, `1.0` (not `.5`, `5.`, `1e-2`). */
const DECIMAL = /^(0|[1-9]\d*)(\.\d+)?$/;

/**
 * A count flag (`--trials 30`) as a number: a positive integer in decimal digits only, that a number holds exactly.
 * What `Number()` would read as well (`1e2`, `0x10`, `5.0`, `' 5'`, `''`) is refused, not coerced.
 * @throws InvalidFlagError
 */
export function positiveInteger(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!POSITIVE_INTEGER.test(value))
    throw new InvalidFlagError(flag, `${flag} must be a positive integer in decimal digits (e.g. 30), not "${value}"`);
  const count = Number(value);
  if (!Number.isSafeInteger(count))
    throw new InvalidFlagError(flag, `${flag} must be at most ${Number.MAX_SAFE_INTEGER}, not "${value}"`);
  return count;
}

/**
 * A share flag (`--bound-threshold 0.05`) as a number from 0 to 1, written in decimal: digits, then optionally a
 * point and digits (`0`, `0.05`, `1`). A sign, an exponent (`5e-2`), hex, a bare point (`.05`) or spaces are refused,
 * not coerced. @throws InvalidFlagError
 */
export function share(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = DECIMAL.test(value) ? Number(value) : NaN;
  if (!(number >= 0 && number <= 1))
    throw new InvalidFlagError(flag, `${flag} must be a share from 0 to 1 in decimal (e.g. 0.05), not "${value}"`);
  return number;
}
