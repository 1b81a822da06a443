import { createRequire } from 'node:module';
import type { TokenEdges } from './token-edges.js';

// The package's CommonJS build: its ESM build imports JSON without an import attribute, which Node's ESM loaders warn about.
const { getCountries, getCountryCallingCode, Metadata } = createRequire(import.meta.url)(
  'libphonenumber-js/min',
) as typeof import('libphonenumber-js/min');

/**
 * One way to read a phone number: its national significant number, and the country calling codes it may belong
 * to (`null`: any country, for a number written without country code or trunk prefix).
 */
export interface PhoneReading {
  /** The national significant number (digits, no country code, no trunk prefix). */
  readonly national: string;
  /** The country calling codes this reading belongs to; `null` for any. */
  readonly countries: ReadonlySet<string> | null;
}

/**
 * The forms a phone number may be written in elsewhere, so that both sides of a comparison reach the same number
 * in E.164. A number given in E.164 (`+14155550100`) also occurs as `0014155550100`, `14155550100`, with its
 * country's trunk prefix (`1 415 555 0100`; `8 495 …` for `+7 495 …`; `06 30 …` for `+36 30 …`) or bare national
 * (`4155550100`); a number given without `+` is read every way it may be meant (see {@link phoneForms}).
 */
export interface PhoneForms {
  /** The national significant number (digits, no trunk prefix `0`). */
  readonly national: string;
  /** The country calling code of a number given in international form; `null` otherwise. */
  readonly country: string | null;
  /** Every reading of the number; it occurs in a text when one of them does. */
  readonly readings: readonly PhoneReading[];
}

interface NumberingPlans {
  /** Every country calling code. */
  readonly codes: ReadonlySet<string>;
  /** The trunk (national) prefixes of a country calling code's regions, e.g. `7` → `8`, `36` → `06`. */
  readonly trunks: ReadonlyMap<string, ReadonlySet<string>>;
  /** The country calling codes whose regions dial a trunk prefix, e.g. `8` → `7`, `375`, `993`. */
  readonly countriesOfTrunk: ReadonlyMap<string, ReadonlySet<string>>;
  /** The possible lengths of a country calling code's national numbers, e.g. `1` → 10, `36` → 8, 9. */
  readonly nationalLengths: ReadonlyMap<string, ReadonlySet<number>>;
}

let plans: NumberingPlans | undefined;

/** Country calling codes and trunk prefixes, from `libphonenumber-js`'s metadata. */
function numberingPlans(): NumberingPlans {
  if (plans !== undefined) return plans;
  const metadata = new Metadata();
  const codes = new Set<string>();
  const trunks = new Map<string, Set<string>>();
  const countriesOfTrunk = new Map<string, Set<string>>();
  const nationalLengths = new Map<string, Set<number>>();
  for (const country of getCountries()) {
    const code = getCountryCallingCode(country);
    codes.add(code);
    metadata.selectNumberingPlan(country);
    // The typings omit the numbering plan's methods: `nationalPrefix()` is its trunk prefix (`0`, `8`, `06`),
    // `possibleLengths()` its national numbers' lengths.
    const plan = metadata.numberingPlan as unknown as NumberingPlan;
    if (!nationalLengths.has(code)) nationalLengths.set(code, new Set());
    for (const length of plan.possibleLengths()) nationalLengths.get(code)!.add(length);
    const trunk = plan.nationalPrefix();
    if (trunk === undefined || trunk === '') continue;
    if (!trunks.has(code)) trunks.set(code, new Set());
    trunks.get(code)!.add(trunk);
    if (!countriesOfTrunk.has(trunk)) countriesOfTrunk.set(trunk, new Set());
    countriesOfTrunk.get(trunk)!.add(code);
  }
  return (plans = { codes, trunks, countriesOfTrunk, nationalLengths });
}

interface NumberingPlan {
  nationalPrefix(): string | undefined;
  possibleLengths(): readonly number[];
}

const PHONE = /^(?:\+|00)?\d{7,15}$/u;
/** A national significant number has at least four digits (ITU-T E.164 leaves it to countries; none is shorter). */
const MIN_NATIONAL = 4;

/**
 * The phone forms of a canonical one-token value, or `null` when it is not a phone number: 7 to 15 digits,
 * optionally after `+` or `00`. Verdict knows no region of the user, so no default region applies; instead:
 *
 * - an international number (`+` or `00`) is split into its country calling code and national number, as E.164
 *   reads it (country calling codes are prefix-free);
 * - a number without `+` is read as a bare national number (any country); after a trunk prefix of some region
 *   (`0`, `1`, `8`, `06`, from `libphonenumber-js`'s metadata), as the national number of the countries that dial
 *   it; and when it starts with a country calling code followed by as many digits as that code's numbering plan
 *   allows a national number, as that international number.
 *
 * @example phoneForms('+14155550100') // { national: '4155550100', country: '1', readings: [{ national: '4155550100', countries: Set {'1'} }] }
 */
export function phoneForms(token: string): PhoneForms | null {
  if (!PHONE.test(token)) return null;
  const { codes, trunks, countriesOfTrunk, nationalLengths } = numberingPlans();
  if (token.startsWith('+') || token.startsWith('00')) {
    const digits = token.replace(/^\+|^00/u, '');
    for (let length = 1; length <= 3; length++) {
      const code = digits.slice(0, length);
      if (codes.has(code) && digits.length - length >= MIN_NATIONAL) {
        const national = digits.slice(length);
        const countries = new Set([code]);
        // `+49 (0) 30 …`: the trunk prefix written after the country code, which is not dialled from abroad.
        const trunk = [...(trunks.get(code) ?? [])].find(
          (prefix) => national.startsWith(prefix) && national.length - prefix.length >= MIN_NATIONAL,
        );
        const readings = [{ national, countries }];
        if (trunk !== undefined) readings.push({ national: national.slice(trunk.length), countries });
        return { national, country: code, readings };
      }
    }
    return null;
  }
  // One reading per national number: the countries of its trunk-prefix and country-code readings together.
  const byNational = new Map<string, ReadonlySet<string>>();
  const add = (national: string, countries: ReadonlySet<string>) => {
    const known = byNational.get(national);
    byNational.set(national, known === undefined ? countries : new Set([...known, ...countries]));
  };
  for (const [trunk, countries] of countriesOfTrunk)
    if (token.startsWith(trunk) && token.length - trunk.length >= MIN_NATIONAL)
      add(token.slice(trunk.length), countries);
  for (let length = 1; length <= 3; length++) {
    const code = token.slice(0, length);
    if (codes.has(code) && nationalLengths.get(code)?.has(token.length - length) === true)
      add(token.slice(length), new Set([code]));
  }
  const readings: PhoneReading[] = [{ national: token, countries: null }];
  for (const [national, countries] of byNational) if (national !== token) readings.push({ national, countries });
  return { national: token.replace(/^0(?=\d)/u, ''), country: null, readings };
}

/** A bare run of digits in a text counts as a number given in international form from this length on. */
const BARE_NATIONAL = 7;

/**
 * Whether a phone number of these forms occurs, as a whole number, in canonical text: `edges` say what may stand
 * before and after it (`TOKEN_EDGES` in trusted content, `WORD_EDGES` in untrusted content).
 */
export function phoneOccursIn(text: string, { readings, country }: PhoneForms, edges: TokenEdges): boolean {
  // Every reading's national number is a suffix of the token, so all end in the shortest: one scan for it, and
  // each hit is checked for every reading.
  const shortest = readings.reduce((a, b) => (b.national.length < a.national.length ? b : a)).national;
  for (let at = text.indexOf(shortest); at !== -1; at = text.indexOf(shortest, at + 1)) {
    const end = at + shortest.length;
    if (edges.continuesAfter(text, end)) continue;
    for (const { national, countries } of readings) {
      const start = end - national.length;
      // Digits with nothing before them are a reading's number only when it is the whole token, or the national
      // number of a value given in international form (the user typed it without country code) that is long
      // enough to be a phone: a reading the value only may mean (after a trunk prefix or a country code it might
      // start with) needs that prefix in the text too, or any order number, postcode or year would clear it.
      const bare = countries === null || (country !== null && national.length >= BARE_NATIONAL);
      if (start >= 0 && text.startsWith(national, start) && prefixAllows(text, start, countries, bare, edges))
        return true;
    }
  }
  return false;
}

/**
 * Whether what is written before a national number at `at` makes it this reading's number: nothing (when `bare`
 * allows it), a country code of the reading (after `+`, `00` or alone) or a trunk prefix of one of its countries.
 */
function prefixAllows(
  text: string,
  at: number,
  countries: ReadonlySet<string> | null,
  bare: boolean,
  edges: TokenEdges,
): boolean {
  let start = at;
  while (start > 0 && isDigit(text, start - 1)) start--;
  if (edges.continuesBefore(text, start)) return false;
  const prefix = text.slice(start, at);
  const plus = text[start - 1] === '+';
  return prefix === '' ? bare && !plus : prefixMatches(prefix, plus, countries);
}

function prefixMatches(prefix: string, plus: boolean, countries: ReadonlySet<string> | null): boolean {
  const { codes, trunks, countriesOfTrunk } = numberingPlans();
  const isCountry = (code: string) => (countries === null ? codes.has(code) : countries.has(code));
  if (plus) return isCountry(prefix) || afterCountry(prefix, countries);
  if (isCountry(prefix) || (prefix.startsWith('00') && isCountry(prefix.slice(2)))) return true;
  if (countries === null) return countriesOfTrunk.has(prefix);
  return [...countries].some((code) => trunks.get(code)?.has(prefix) === true);
}

/** `490` of `+49 (0) 30 …`: a country calling code of the reading, then that country's trunk prefix. */
function afterCountry(prefix: string, countries: ReadonlySet<string> | null): boolean {
  const { codes, trunks } = numberingPlans();
  for (let length = 1; length <= 3 && length < prefix.length; length++) {
    const code = prefix.slice(0, length);
    if ((countries === null ? codes.has(code) : countries.has(code)) && trunks.get(code)?.has(prefix.slice(length)))
      return true;
  }
  return false;
}

function isDigit(text: string, at: number): boolean {
  const code = text.charCodeAt(at);
  return code >= 48 && code <= 57;
}
