import { createRequire } from 'node:module';

const NON_ASCII = /[^\x00-\x7f]/gu;
const HAS_NON_ASCII = /[^\x00-\x7f]/u;
const ASCII = /^[\x00-\x7f]+$/u;
const LETTER = /^\p{L}$/u;
const LETTER_OR_DIGIT = /^[\p{L}\p{N}]$/u;
const HAS_LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
/** Currency signs (`€`, `¥`, `₽`): the table folds them to letters (`ꞓ`, `y̵`, `ք`), which would glue them to the amount. */
const CURRENCY_SIGN = /^\p{Sc}$/u;
/**
 * Every dash punctuation character (`\p{Pd}` of Unicode 17: the hyphens, the en dash, the wave dash, the double
 * hyphens, …), which reads as an ASCII hyphen: a group separator between digits, and no letter of a word. The table
 * folds some of them to letters (`—` and `―` to `ー`, a katakana prolonged sound mark) and others to `=`. A list
 * rather than a scan of `\p{Pd}` at load (a scan of every code point costs some 30 ms); a spec checks it against
 * the `\p{Pd}` of the running Node.
 */
export const DASHES =
  '\u058a\u05be\u1400\u1806\u2010\u2011\u2012\u2013\u2014\u2015\u2e17\u2e1a\u2e3a\u2e3b\u2e40\u2e5d\u301c\u3030\u30a0' +
  '\ufe31\ufe32\ufe58\ufe63\uff0d\u{10d6e}\u{10ead}';
/**
 * The dashes among {@link DASHES} that are prose punctuation, never a hyphen inside a word: the em dash, the
 * horizontal bar, the two- and three-em dashes and the presentation forms of the em dash. They read as a space,
 * which ends a value as white space does (`billing@acme.example—they` holds `billing@acme.example`, where a hyphen
 * would make one longer host of it) and still separates digit groups (`+1—415—555—0100` reads `+14155550100`).
 */
const PROSE_DASHES = '\u2014\u2015\u2e3a\u2e3b\ufe31\ufe58';
/**
 * Full stops that UTS #46 (and so WHATWG URL parsing) reads as a host's label dot: the ideographic, halfwidth
 * ideographic and small full stops. The table folds `。` to `˳`, which would keep `evil。example` from reading as the
 * host `evil.example` a browser opens.
 */
const LABEL_DOTS = '\u3002\uff61\ufe52';
/**
 * Full case folding where `toLowerCase` is not it (Unicode's CaseFolding.txt, status F and C): `ß` and `ẞ` fold to
 * `ss` as `STRASSE` is `straße` in upper case, the final sigma to `σ`, and `İ` to a plain `i` (its lower case is
 * `i` with a combining dot above). `Σ` too, whose lower case is `ς` at the end of a word and `σ` elsewhere.
 */
const CASE_FOLDS: ReadonlyMap<string, string> = new Map([
  ['ß', 'ss'],
  ['ẞ', 'ss'],
  ['ς', 'σ'],
  ['Σ', 'σ'],
  ['İ', 'i'],
]);

interface Folds {
  /** What each character that folds differently from its `toLowerCase` folds to in {@link confusableSkeleton}. */
  readonly all: ReadonlyMap<string, string>;
  /** The same for {@link confusableSkeletonOfNonLetters}: punctuation folded, letters only case-folded. */
  readonly nonLetters: ReadonlyMap<string, string>;
}
let folds: Folds | undefined;

/**
 * Confusable folding and lower case, in one pass over the text as it is spelled: every non-ASCII character that
 * Unicode's confusables data (UTS #39, through the `unhomoglyph` package's table) maps to a prototype is replaced by
 * it, NFKC-normalized, then the whole is lower-cased, so a Cyrillic `раураl` compares equal to `paypal`. ASCII is
 * left as it is (but lower-cased): the table also folds `0` to `O`, `1` to `l` and `m` to `rn`, which would erase
 * the digits that make values (IBANs, phone numbers, amounts) distinct. Rules of its own, decided once at load:
 *
 * - a character is folded as spelled, before lower case: a capital Cyrillic `В` or `К` is the `B` or `K` it looks
 *   like, while its lower case `в` or `к` has a prototype of its own (`ʙ`, `ĸ`) that no ASCII text holds. A letter
 *   whose own prototype is not ASCII takes the ASCII one of its lower or upper case (`в` reads `b` as `В` does,
 *   `Σ` reads `o` as `σ` does), so that a word and its capitals still read alike where the table allows it;
 * - only a letter or digit folds to a letter or digit: punctuation, symbols and marks never do (`—` to `ー`, `‖` to
 *   `ll`, `٪` to `o/0`; currency signs do not fold at all), since a letter would glue the words around it into
 *   one, hiding a value beside it;
 * - every dash (`\p{Pd}`) reads `-`, and the ideographic full stops a host name may hold read `.` (see
 *   {@link LABEL_DOTS});
 * - full case folding where lower case is not it: `ß` reads `ss`, `İ` reads `i`, `ς` reads `σ`.
 *
 * Linear in the text: one table look-up per non-ASCII character.
 *
 * @example confusableSkeleton('АррlЕ') === 'apple'
 */
export function confusableSkeleton(text: string): string {
  if (!HAS_NON_ASCII.test(text)) return text.toLowerCase();
  const table = (folds ??= loadFolds()).all;
  return text.replace(NON_ASCII, (character) => table.get(character) ?? character).toLowerCase();
}

/**
 * {@link confusableSkeleton} of everything but letters: dashes, apostrophes and other punctuation fold as there, a
 * letter stays as it is spelled, only lower-cased (and case-folded: `ß` reads `ss`). How a value is compared where a
 * look-alike must not pass for the letters it imitates (`раураl` stays Cyrillic) while `415‑555` (a non-breaking
 * hyphen) still reads `415-555`.
 *
 * @example confusableSkeletonOfNonLetters('O’Brien раураl') === "o'brien раураl"
 */
export function confusableSkeletonOfNonLetters(text: string): string {
  if (!HAS_NON_ASCII.test(text)) return text.toLowerCase();
  const table = (folds ??= loadFolds()).nonLetters;
  return text.replace(NON_ASCII, (character) => table.get(character) ?? character).toLowerCase();
}

function loadFolds(): Folds {
  const data = createRequire(import.meta.url)('unhomoglyph/data.json') as Record<string, string>;
  const prototypes = new Map<string, string>();
  for (const [character, prototype] of Object.entries(data)) {
    if (!HAS_NON_ASCII.test(character) || CURRENCY_SIGN.test(character)) continue;
    // White space in a prototype (`🅭` is `㏄`, a tab, `⃝`) as one space: the canonical form has collapsed it before.
    const folded = prototype.normalize('NFKC').toLowerCase().replace(/\s+/gu, ' ');
    if (!LETTER_OR_DIGIT.test(character) && HAS_LETTER_OR_DIGIT.test(folded)) continue;
    prototypes.set(character, folded);
  }
  for (const dash of DASHES) prototypes.set(dash, PROSE_DASHES.includes(dash) ? ' ' : '-');
  for (const dot of LABEL_DOTS) prototypes.set(dot, '.');
  const all = new Map<string, string>();
  const nonLetters = new Map<string, string>();
  const characters = new Set<string>(CASE_FOLDS.keys());
  for (const character of prototypes.keys()) {
    characters.add(character);
    for (const variant of [character.toLowerCase(), character.toUpperCase()])
      if (HAS_NON_ASCII.test(variant) && [...variant].length === 1) characters.add(variant);
  }
  for (const character of characters) {
    const lower = character.toLowerCase();
    const letter = LETTER.test(character);
    const caseFolded = CASE_FOLDS.get(character) ?? lower;
    const folded = letter ? foldLetter(character, prototypes) : (prototypes.get(character) ?? lower);
    if (folded !== lower || CASE_FOLDS.has(character)) all.set(character, folded);
    const literal = letter ? caseFolded : folded;
    if (literal !== lower || CASE_FOLDS.has(character)) nonLetters.set(character, literal);
  }
  return { all: closed(all), nonLetters: closed(nonLetters) };
}

/**
 * `folds` with each value folded again until nothing changes: a prototype may itself be a letter that folds further
 * (`ᑎ` to `ո`, which reads `n` as its capital `Ո` does), and a character must read as its prototype reads.
 */
function closed(folds: Map<string, string>): ReadonlyMap<string, string> {
  const fold = (text: string) =>
    text.replace(NON_ASCII, (character) => folds.get(character) ?? character).toLowerCase();
  // A few rounds reach the fixed point (two in Unicode 17's data); the bound keeps a cycle in some future table finite.
  for (let round = 0, changed = true; changed && round < 8; round++) {
    changed = false;
    for (const [character, folded] of folds) {
      const again = fold(folded);
      if (again === folded) continue;
      folds.set(character, again);
      changed = true;
    }
  }
  return folds;
}

/**
 * What a letter folds to: its own prototype where that is ASCII (a capital look-alike of an ASCII letter, `В`);
 * else a letter that has a lower case folds as that does (`Σ` as `σ`, to `o`; `Ф` as `ф`, to `ɸ`), so that case
 * still makes no difference where the table allows it; a lower-case letter takes its upper case's prototype where
 * that is ASCII and its own is not (`в`, whose own is `ʙ`, reads `b` as `В` does); else its own prototype, or itself.
 */
function foldLetter(letter: string, prototypes: ReadonlyMap<string, string>): string {
  const own = prototypes.get(letter);
  if (own !== undefined && ASCII.test(own)) return own;
  const caseFolded = CASE_FOLDS.get(letter) ?? letter.toLowerCase();
  if (caseFolded !== letter)
    return [...caseFolded].length === 1 ? foldLetter(caseFolded, prototypes) : (own ?? caseFolded);
  const upper = prototypes.get(letter.toUpperCase());
  return upper !== undefined && ASCII.test(upper) ? upper : (own ?? letter);
}
