import { DataClass } from '../data-class.js';
import { HAS_DIGIT, candidateDetector, type SpanBounds } from './candidate-detector.js';
import type { PiiDetector } from './pii-detector.interface.js';

const CANDIDATE = /(?<![A-Za-z0-9]|[0-9]-)([0-9]{3})-([0-9]{2})-([0-9]{4})(?![A-Za-z0-9]|-[0-9])/;

function checkSsn(match: RegExpExecArray): SpanBounds | undefined {
  const [candidate, area, group, serial] = match;
  // Never assigned: area 000, 666 and 900–999, group 00, serial 0000.
  if (area === '000' || area === '666' || area[0] === '9' || group === '00' || serial === '0000') return undefined;
  return { start: match.index, end: match.index + candidate.length };
}

/**
 * US Social Security numbers in the dashed form `AAA-GG-SSSS`, excluding numbers never assigned (area 000, 666 or
 * 900–999, group 00, serial 0000). Undashed nine-digit numbers are not found: without the dashes they are
 * indistinguishable from any other number. Class {@link DataClass.Sensitive}, label `SSN`.
 */
export const usSsnDetector: PiiDetector = candidateDetector(
  'us-ssn',
  'SSN',
  DataClass.Sensitive,
  CANDIDATE,
  checkSsn,
  HAS_DIGIT,
);
