import { DataClass } from '../data-class.js';
import { HAS_DIGIT, candidateDetector, type SpanBounds } from './candidate-detector.js';
import { passesLuhn } from './luhn.js';
import type { PiiDetector } from './pii-detector.interface.js';

// A whole run of digits joined by single spaces or dashes, 13–19 digits, not touching letters, digits or further groups.
const CANDIDATE = /(?<![A-Za-z0-9]|[0-9][ -])[0-9](?:[ -]?[0-9]){12,18}(?![A-Za-z0-9]|[ -][0-9])/;
const GROUP = /^[0-9]{3,6}$/;

function checkCard(match: RegExpExecArray): SpanBounds | undefined {
  const candidate = match[0];
  const separators = new Set(candidate.replace(/[0-9]/g, ''));
  if (separators.size > 1) return undefined;
  if (separators.size === 1 && !candidate.split(/[ -]/).every((group) => GROUP.test(group))) return undefined;
  const digits = candidate.replace(/[ -]/g, '');
  if (digits[0] < '2' || digits[0] > '6') return undefined;
  return passesLuhn(digits) ? { start: match.index, end: match.index + candidate.length } : undefined;
}

/**
 * Payment card numbers (PANs): 13–19 digits, unbroken or in groups of 3–6 digits separated by one kind of separator
 * (single spaces or single dashes, e.g. `4111 1111 1111 1111`, `3782-822463-10005`), starting with 2–6 (the major
 * networks' ranges), and passing the Luhn check. A Luhn-invalid number is not a card. A longer run of digit groups is
 * read as one number, so it is not a card either. Class {@link DataClass.Sensitive}, label `CARD`.
 */
export const paymentCardDetector: PiiDetector = candidateDetector(
  'payment-card',
  'CARD',
  DataClass.Sensitive,
  CANDIDATE,
  checkCard,
  HAS_DIGIT,
);
