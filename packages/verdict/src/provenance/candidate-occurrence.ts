import type { ArgumentCandidate } from './argument-candidates.js';
import { isWord, phoneOccursIn } from './phone-forms.js';

/**
 * Whether a candidate occurs in canonical text as a whole value: not as part of a longer word or number
 * (`acct-1234` does not occur in `acct-12345`). A phone number occurs in any of its forms (`phoneForms`).
 */
export function occursIn(text: string, candidate: Pick<ArgumentCandidate, 'needle' | 'phone'>): boolean {
  if (candidate.phone !== null) return phoneOccursIn(text, candidate.phone);
  const { needle } = candidate;
  if (needle === '') return false;
  // Searched from its first character that is not a lower-case ASCII letter (a digit, `@`, `.`, `-`): such
  // characters are rare in prose, so the scan skips ahead quickly; each hit is then checked as the whole needle.
  const offset = Math.max(0, needle.search(/[^a-z]/u));
  const anchor = needle.slice(offset);
  for (let at = text.indexOf(anchor, offset); at !== -1; at = text.indexOf(anchor, at + 1)) {
    const start = at - offset;
    if (text.startsWith(needle, start) && !isWord(text, start - 1) && !isWord(text, start + needle.length)) return true;
  }
  return false;
}
