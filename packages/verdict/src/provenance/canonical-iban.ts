import { isValidIBAN } from 'ibantools';

/**
 * A country code, check digits (`DE89`, or `DE 89`) and groups of up to four letters or digits, optionally
 * separated; a line break (`\n`, the canonical form's hard break) may separate groups too, where an IBAN wraps.
 */
const IBAN_TEXT = /(?<![\p{L}\p{N}])[a-z]{2}[ ._-]?\d{2}(?:[ ._\n-]?[a-z0-9]{1,4}){2,10}(?![\p{L}\p{N}])/gu;
const SEPARATOR = /[ ._\n-]/u;

/**
 * IBANs written in groups (`DE89 3704 0044 …`, `DE 89 3704 …`, `DE89-3704-…`, `DE89.3704.…`, `DE89_3704_…`) as one compact token. Only a valid IBAN (ISO
 * 13616 check digits, the country's length, through `ibantools`) is compacted: the longest prefix of the groups
 * that is one, so that a word after an IBAN is not swallowed.
 *
 * @example compactIbans('pay de89 3704 0044 0532 0130 00 now') === 'pay de89370400440532013000 now'
 */
export function compactIbans(text: string): string {
  return text.replace(IBAN_TEXT, (match) => {
    if (!SEPARATOR.test(match)) return match;
    const groups = match.split(/([ ._\n-])/u);
    for (let end = groups.length; end >= 3; end -= 2) {
      const compact = groups
        .slice(0, end)
        .filter((_, i) => i % 2 === 0)
        .join('');
      if (isValidIBAN(compact.toUpperCase())) return compact + groups.slice(end).join('');
    }
    return match;
  });
}
