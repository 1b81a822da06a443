import { DataClass } from '../data-class.js';
import { HAS_DIGIT, candidateDetector, type SpanBounds } from './candidate-detector.js';
import { passesIbanChecksum } from './iban-checksum.js';
import type { PiiDetector } from './pii-detector.interface.js';

// Country code, check digits, then up to 30 upper-case letters or digits with optional single spaces. The candidate may
// run into a following word (`… 0130 00 EUR`); the check below picks the longest well-formed prefix.
const CANDIDATE = /(?<![A-Za-z0-9])[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]){11,30}/;
const ALNUM = /[A-Za-z0-9]/;

/** Candidate-relative ends of well-formed IBAN shapes inside `candidate`, shortest first. */
function shapeEnds(candidate: string): number[] {
  const groups = candidate.split(' ');
  // Compact form: the whole first token.
  if (groups[0].length > 4) return groups[0].length >= 15 && groups[0].length <= 34 ? [groups[0].length] : [];
  // Print form: groups of four, the last one 1–4 characters.
  const ends: number[] = [];
  let end = 4;
  let length = 4;
  for (const group of groups.slice(1)) {
    if (group.length > 4) break;
    end += 1 + group.length;
    length += group.length;
    if (length >= 15 && length <= 34) ends.push(end);
    if (group.length < 4) break;
  }
  return ends;
}

function checkIban(match: RegExpExecArray, text: string): SpanBounds | undefined {
  const ends = shapeEnds(match[0]);
  for (let i = ends.length - 1; i >= 0; i--) {
    const end = match.index + ends[i];
    if (ALNUM.test(text.charAt(end))) continue;
    if (passesIbanChecksum(match[0].slice(0, ends[i]).replaceAll(' ', ''))) return { start: match.index, end };
  }
  return undefined;
}

/**
 * International Bank Account Numbers (ISO 13616): two upper-case letters, two check digits and a BBAN, 15–34
 * characters, either compact (`DE89370400440532013000`) or printed in groups of four separated by single spaces
 * (`DE89 3704 0044 0532 0130 00`), valid only when the mod-97 check gives 1. Country-specific lengths and BBAN formats
 * are not checked; lower-case IBANs are not found. Class {@link DataClass.Sensitive}, label `IBAN`.
 */
export const ibanDetector: PiiDetector = candidateDetector(
  'iban',
  'IBAN',
  DataClass.Sensitive,
  CANDIDATE,
  checkIban,
  HAS_DIGIT,
);
