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
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1))
    if (!isWord(text, at - 1) && !isWord(text, at + needle.length)) return true;
  return false;
}
