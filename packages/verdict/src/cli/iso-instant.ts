import { InvalidEvidenceFilterError } from '../errors/invalid-evidence-filter.error.js';

/**
 * An ISO 8601 flag as a `Date`: a date (UTC midnight) or an instant with its zone, of a day the calendar has
 * (`2026-02-31` is refused, not rolled over into March). @throws InvalidEvidenceFilterError
 */
export function instant(flag: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const date = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2}))?$/.test(value) ? new Date(value) : new Date(NaN);
  if (Number.isNaN(date.getTime()) || !isCalendarDay(value.slice(0, 10)))
    throw new InvalidEvidenceFilterError(`${flag} must be an ISO 8601 date or instant with a zone, not "${value}"`);
  return date;
}

/**
 * Whether `YYYY-MM-DD` names a day of the calendar, in any year `YYYY` writes: `setUTCFullYear`, not `Date.UTC`, which
 * reads the years 0–99 as 1900–1999 (so `0050-01-01` was refused where `EvidenceQuery` takes the years 0001–9999).
 */
function isCalendarDay(day: string): boolean {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  const utc = new Date(0);
  utc.setUTCFullYear(year, month - 1, date);
  return utc.getUTCFullYear() === year && utc.getUTCMonth() === month - 1 && utc.getUTCDate() === date;
}
