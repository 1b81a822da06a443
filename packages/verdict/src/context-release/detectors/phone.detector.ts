import { DataClass } from '../data-class.js';
import { HAS_DIGIT, candidateDetector, type SpanBounds } from './candidate-detector.js';
import type { PiiDetector } from './pii-detector.interface.js';

// An optional `+CC`, an optional `(area)`, then one to eight digit groups joined by single spaces, dots or dashes. The
// whole run must stand alone: no word character, `+`, `.` or `-` before it (`ORD-10023`) and no further group after it.
// Only a run without `+` must also not continue a previous digit group; a `+` always starts a new number.
const CANDIDATE =
  /(?:(?<![A-Za-z0-9_+.-])\+[0-9]{1,3}[ .-]?|(?<![A-Za-z0-9_+.-]|[0-9][ .-]))(?:\([0-9]{1,5}\)[ .-]?)?[0-9]{1,15}(?:[ .-][0-9]{1,15}){0,7}(?![A-Za-z0-9_+]|[ .-][0-9])/;

function isNationalNumber(candidate: string): boolean {
  const hasAreaCode = candidate.startsWith('(');
  const rest = hasAreaCode ? candidate.slice(candidate.indexOf(')') + 1).replace(/^[ .-]/, '') : candidate;
  const groups = rest.split(/[ .-]/);
  const separators = new Set(rest.replace(/[0-9]/g, ''));
  const [separator] = separators;
  if (separators.size > 1) return false;
  if (!hasAreaCode && groups.length < 3) return false; // `1000-2000`, `555-2671`
  if (groups.slice(1).some((group) => group.length < 2)) return false; // `978-0-306-40615-7`, `1 2 3 4 5 6 7 8 9`
  if (hasAreaCode) return true;
  if (groups[0].length <= 3 && groups.slice(1).every((group) => group.length === 3)) return false; // `1 234 567 890`
  if (separator === '.' && groups.length === 4 && groups.every((group) => group.length <= 3)) return false; // `10.100.200.30`
  if (separator === '-' && groups.map((group) => group.length).join() === '3,2,4') return false; // SSN shape
  return true;
}

function checkPhone(match: RegExpExecArray): SpanBounds | undefined {
  const candidate = match[0];
  const digits = candidate.replace(/[^0-9]/g, '').length;
  const accepted = candidate.startsWith('+')
    ? digits >= 7 && digits <= 15
    : digits >= 9 && digits <= 15 && isNationalNumber(candidate);
  return accepted ? { start: match.index, end: match.index + candidate.length } : undefined;
}

/**
 * Telephone numbers, tuned for few false positives:
 * - international: `+` and 7–15 digits, with or without separators (`+1 415 555 2671`, `+44 20 7946 0958`,
 *   `+4915112345678`, `+49 (0)30 123456`);
 * - national: 9–15 digits in at least three groups joined by one kind of separator (space, dot or dash), or after a
 *   parenthesized area code (`(415) 555-2671`, `415.555.2671`, `020 7946 0958`); every group after the first has at
 *   least two digits.
 *
 * Not phones: unbroken digit runs without `+` (order numbers, timestamps), numbers glued to a word or dash
 * (`ORD-10023`), years, ranges and dates (`2019-2024`, `2024-01-15`), thousands groupings (`1 234 567 890`), dotted
 * quads, and the SSN shape `123-45-6789`. Short local numbers (`555-2671`) are therefore missed. Class
 * {@link DataClass.Pii}, label `PHONE`.
 */
export const phoneDetector: PiiDetector = candidateDetector(
  'phone',
  'PHONE',
  DataClass.Pii,
  CANDIDATE,
  checkPhone,
  HAS_DIGIT,
);
