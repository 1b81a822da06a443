import { createRequire } from 'node:module';

// The package's CommonJS build: its ESM build imports JSON without an import attribute, which Node's ESM loaders warn about.
const { getCountries, getCountryCallingCode } = createRequire(import.meta.url)(
  'libphonenumber-js/min',
) as typeof import('libphonenumber-js/min');

let callingCodes: ReadonlySet<string> | undefined;

/**
 * The forms a phone number may be written in elsewhere. A number given in E.164 (`+14155550100`) also occurs as
 * `0014155550100`, `04155550100` (trunk prefix) or bare national `4155550100`; a national number
 * (`04155550100`, `4155550100`) also occurs after any country code (`+1 4155550100`).
 */
export interface PhoneForms {
  /** The national significant number (digits, no trunk prefix). */
  readonly national: string;
  /** The country calling code of a number given in international form; `null` for a national number. */
  readonly country: string | null;
}

const PHONE = /^(?:\+|00)?\d{7,15}$/u;

/**
 * The phone forms of a canonical one-token value, or `null` when it is not a phone number: 7 to 15 digits,
 * optionally after `+` or `00`. An international number is split into its country calling code (from
 * `libphonenumber-js`'s metadata) and national number, as E.164 reads it.
 *
 * @example phoneForms('+14155550100') // { national: '4155550100', country: '1' }
 */
export function phoneForms(token: string): PhoneForms | null {
  if (!PHONE.test(token)) return null;
  if (token.startsWith('+') || token.startsWith('00')) {
    const digits = token.replace(/^\+|^00/u, '');
    // Country calling codes are prefix-free (ITU-T E.164): the one that starts the number is the country's.
    const codes = (callingCodes ??= new Set(getCountries().map((country) => getCountryCallingCode(country))));
    for (let length = 1; length <= 3; length++)
      if (codes.has(digits.slice(0, length)) && digits.length - length >= 4)
        return { national: digits.slice(length), country: digits.slice(0, length) };
    return null;
  }
  return { national: token.replace(/^0(?=\d)/u, ''), country: null };
}

/** Whether a phone number of these forms occurs, as a whole number, in canonical text. */
export function phoneOccursIn(text: string, forms: PhoneForms): boolean {
  const { national, country } = forms;
  for (let at = text.indexOf(national); at !== -1; at = text.indexOf(national, at + 1)) {
    if (isWord(text, at + national.length)) continue;
    const before = text.slice(Math.max(0, at - 6), at);
    const prefix = /(?:\+|00)(\d{1,3})$|0$|$/u.exec(before)!;
    const start = at - prefix[0].length;
    if (isWord(text, start - 1) || text[start - 1] === '+') continue;
    if (prefix[1] === undefined || country === null || prefix[1] === country) return true;
  }
  return false;
}

const WORD = /[\p{L}\p{N}]/u;

/** Whether the character at `at` is a letter or digit (outside the text: not). */
export function isWord(text: string, at: number): boolean {
  if (at < 0 || at >= text.length) return false;
  const code = text.codePointAt(at)!;
  // A low surrogate: read the whole code point it ends.
  const character =
    code >= 0xdc00 && code <= 0xdfff && at > 0
      ? String.fromCodePoint(text.codePointAt(at - 1)!)
      : String.fromCodePoint(code);
  return WORD.test(character);
}
