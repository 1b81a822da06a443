import { InvalidEvidenceFilterError } from '../errors/invalid-evidence-filter.error.js';

/**
 * A count flag (`--limit 100`) as a number: a positive integer in decimal digits only, without sign, spaces or
 * leading zeros (`[1-9][0-9]*`, an integer as JSON writes one), that a number holds exactly. What `Number()` would
 * read as well (`1e2`, `0x10`, `5.0`, `' 5'`, `''`) is refused, not coerced. @throws InvalidEvidenceFilterError
 */
export function positiveInteger(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^[1-9]\d*$/.test(value))
    throw new InvalidEvidenceFilterError(
      `${flag} must be a positive integer in decimal digits (e.g. 100), not "${value}"`,
    );
  const count = Number(value);
  if (!Number.isSafeInteger(count))
    throw new InvalidEvidenceFilterError(`${flag} must be at most ${Number.MAX_SAFE_INTEGER}, not "${value}"`);
  return count;
}
