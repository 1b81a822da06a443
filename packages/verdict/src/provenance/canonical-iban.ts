import { countrySpecs, isValidIBAN } from 'ibantools';

/**
 * A country code, check digits (`DE89`, or `DE 89`) and runs of letters or digits, each after one separator; where
 * an IBAN may wrap, a line break (`\n`, the canonical form's hard break) may separate runs too. Each part can be read
 * one way only (a run ends where a separator is), and runs are bounded, so that no text makes the search backtrack
 * more than a few hundred steps at any position.
 */
const ibanText = (separator: string) =>
  new RegExp(
    String.raw`(?<![\p{L}\p{N}])[a-z]{2}[ ._-]?\d{2}[a-z0-9]{0,30}(?:${separator}[a-z0-9]{1,30}){0,10}(?![\p{L}\p{N}])`,
    'gu',
  );
const IBAN_TEXT = ibanText('[ ._\\n-]');
/** {@link IBAN_TEXT} on one line: how content that vouches for a value holds an IBAN (ADR 0173). */
const IBAN_LINE = ibanText('[ ._-]');
const SEPARATOR = /[ ._\n-]/u;

/**
 * IBANs written in groups (`DE89 3704 0044 …`, `DE 89 3704 …`, `DE89-3704-…`, `DE89.3704.…`, `DE89_3704_…`) as one
 * compact token, across a line break where an IBAN wraps (`wraps`), else on one line. Only a valid IBAN (ISO
 * 13616 check digits, the country's length, through `ibantools`) is compacted: the longest prefix of the groups
 * that is one, so that a word after an IBAN is not swallowed. Where no prefix is one, the text is read again from the
 * next word: a word of two letters and a number before an IBAN (`of 25 to DE89 …`) look like a country code and check
 * digits, and must not hide the IBAN after them.
 *
 * @example compactIbans('pay de89 3704 0044 0532 0130 00 now') === 'pay de89370400440532013000 now'
 */
export function compactIbans(text: string, wraps = true): string {
  const pattern = new RegExp(wraps ? IBAN_TEXT : IBAN_LINE);
  let compacted = '';
  let copied = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    const iban = SEPARATOR.test(match[0]) ? validPrefix(match[0]) : undefined;
    if (iban === undefined) {
      // Not an IBAN from here: from the next word on, the groups may still hold one.
      pattern.lastIndex = match.index + 1;
      continue;
    }
    compacted += text.slice(copied, match.index) + iban.compact;
    copied = pattern.lastIndex = match.index + iban.length;
  }
  return compacted + text.slice(copied);
}

/**
 * The longest prefix of `groups` (an {@link IBAN_TEXT} match) that is a valid IBAN: compact, and its length as written.
 * Only a prefix as long as its country's IBANs is checked: two letters that are no IBAN country (`of 25 …`) cost one
 * lookup.
 */
function validPrefix(match: string): { readonly compact: string; readonly length: number } | undefined {
  const chars = (countrySpecs as Record<string, { readonly chars?: number } | undefined>)[
    match.slice(0, 2).toUpperCase()
  ]?.chars;
  if (chars === undefined) return undefined;
  const groups = match.split(/([ ._\n-])/u);
  for (let end = groups.length; end >= 3; end -= 2) {
    const written = groups.slice(0, end);
    const compact = written.filter((_, i) => i % 2 === 0).join('');
    if (compact.length === chars && isValidIBAN(compact.toUpperCase()))
      return { compact, length: written.join('').length };
  }
  return undefined;
}
