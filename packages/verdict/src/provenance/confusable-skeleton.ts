import { createRequire } from 'node:module';

const NON_ASCII = /[^\x00-\x7f]/gu;
const HAS_NON_ASCII = /[^\x00-\x7f]/u;
const LETTER = /^\p{L}$/u;
/** Currency signs (`€`, `¥`, `₽`): the table folds them to letters (`ꞓ`, `y̵`, `ք`), which would glue them to the amount. */
const CURRENCY_SIGN = /^\p{Sc}$/u;
let prototypes: Map<string, string> | undefined;

/**
 * Confusable folding: every non-ASCII character that Unicode's confusables data (UTS #39, through the
 * `unhomoglyph` package's table) maps to a prototype is replaced by it, NFKC-normalized and lower-cased, so a
 * Cyrillic `раураl` compares equal to `paypal`. ASCII is left as it is: the table also folds `0` to `O`, `1` to
 * `l` and `m` to `rn`, which would erase the digits that make values (IBANs, phone numbers, amounts) distinct.
 * Currency signs (`\p{Sc}`) are left as they are too: folded to letters (`€` to `ꞓ`), they would turn
 * `€10,000` into a word, and the amount in it would no longer be read as a number.
 *
 * @example confusableSkeleton('аррlе') === 'apple'
 */
export function confusableSkeleton(text: string): string {
  if (!HAS_NON_ASCII.test(text)) return text;
  const table = (prototypes ??= loadPrototypes());
  return text.replace(NON_ASCII, (character) => table.get(character) ?? character);
}

/**
 * {@link confusableSkeleton} of everything but letters: dashes, apostrophes and other punctuation fold as there, a
 * letter stays as it is spelled. How a value is compared where a look-alike must not pass for the letters it imitates
 * (`раураl` stays Cyrillic) while `415‑555` (a non-breaking hyphen) still reads `415-555`.
 *
 * @example confusableSkeletonOfNonLetters('O’Brien раураl') === "O'Brien раураl"
 */
export function confusableSkeletonOfNonLetters(text: string): string {
  if (!HAS_NON_ASCII.test(text)) return text;
  const table = (prototypes ??= loadPrototypes());
  return text.replace(NON_ASCII, (character) =>
    LETTER.test(character) ? character : (table.get(character) ?? character),
  );
}

function loadPrototypes(): Map<string, string> {
  const data = createRequire(import.meta.url)('unhomoglyph/data.json') as Record<string, string>;
  const table = new Map<string, string>();
  for (const [character, prototype] of Object.entries(data))
    if (HAS_NON_ASCII.test(character) && !CURRENCY_SIGN.test(character))
      // White space in a prototype (`🅭` is `㏄`, a tab, `⃝`) as one space: the canonical form has collapsed it before.
      table.set(character, prototype.normalize('NFKC').toLowerCase().replace(/\s+/gu, ' '));
  return table;
}
