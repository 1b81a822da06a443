import { canonicalNumbers } from './canonical-number.js';
import { canonicalUrls, unicodeHosts } from './canonical-url.js';
import { compactIbans } from './canonical-iban.js';
import { confusableSkeleton, confusableSkeletonOfNonLetters } from './confusable-skeleton.js';
import { asciiDigits } from './decimal-digits.js';

/** Unicode format characters (zero-width spaces, joiners, bidi controls, soft hyphens): invisible, so removed. */
const FORMAT_CHARACTERS = /\p{Cf}/gu;
/** White space other than one plain space: a run of it reads as one space, or as a hard break (below). */
const WHITE_SPACE = /[^\S ]\s*| \s+/gu;
/**
 * A line break, a tab or a paragraph separator: a run of white space holding one is a hard break, which no group
 * of digits crosses (an id on one line and an amount on the next are two values).
 */
const HARD_BREAK = /[\t-\r\u0085\u2028\u2029]/u;
const NON_ASCII = /[^\x00-\x7f]/u;
/** Digits in three or more dotted groups (`030.123.4567`, `12.03.2026`): a grouped value, not a decimal. */
const DOTTED_GROUPS = /(?<![\p{L}\p{N}.])\d+(?:\.\d+){2,}(?![\p{L}\p{N}]|\.\d)/gu;
/** One or two separators between digits (`+1 (415) 555-0100`, `10 000`, `4111 1111 1111 1111`, `4111_1111`). */
const DIGIT_SEPARATOR = /(?<=\d)[ \-/()_]{1,2}(?=\d)/gu;

/**
 * A string escape a model reads as what it stands for: JSON's (`\n`, `\t`, `\u0040`, `\/`, …) and the hexadecimal ones
 * of other languages (`\x0a`, `\u{a}`), so provenance reads it so too. Text that nests JSON in JSON escapes again at
 * each level: decoded until nothing changes, up to {@link ESCAPE_DEPTH} times.
 */
const STRING_ESCAPE = /\\(?:u([0-9a-fA-F]{4})|u\{([0-9a-fA-F]{1,6})\}|x([0-9a-fA-F]{2})|(["\\/bfnrt]))/g;
const ESCAPE_DEPTH = 8;
const ESCAPED: Readonly<Record<string, string>> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
/**
 * What is left of an escape after decoding (deeper nesting, another language's `\v`, `\e`, `\012`): a backslash and
 * its letter or digits never glue onto the value after them — they read as a break.
 */
const LEFT_ESCAPE = /\\(?:[0-7]{1,3}|[A-Za-z])/g;
/**
 * A special scheme's colon and the run of slashes and backslashes after it: the WHATWG URL parser (Node's `URL`,
 * browsers) reads the whole run as the `//` before the host (`https:\evil.example`, `https://\evil.example` and
 * `https:/\evil.example` are `https://evil.example`); `file` reads two. The parser first drops every ASCII tab, line
 * feed and carriage return of a URL, so they may stand anywhere in the scheme, around its colon and among the slashes
 * (`ht⇥tps:⇥\evil.example` is `https://evil.example` too). Each run of them lies between two fixed characters: linear.
 */
const SCHEME_SLASHES =
  /(?<![\p{L}\p{N}+.-])(h[\t\n\r]*t[\t\n\r]*t[\t\n\r]*p(?:[\t\n\r]*s)?|w[\t\n\r]*s(?:[\t\n\r]*s)?|f[\t\n\r]*t[\t\n\r]*p|f[\t\n\r]*i[\t\n\r]*l[\t\n\r]*e)[\t\n\r]*:[\t\n\r]*([/\\](?:[\t\n\r]*[/\\])*)/giu;
/** What the WHATWG URL parser drops from a URL before it reads it: ASCII tab, line feed and carriage return. */
const URL_IGNORED = /[\t\n\r]/gu;
const URL_IGNORED_IN = /[\t\n\r]/u;
/**
 * What a URL holds after its scheme's slashes, as {@link schemeSlashes} repeats it: up to white space, a quote or an
 * angle bracket (`URL_TEXT`), or a `\` but an escaped slash (`\/`). Each repeat then ends before the next URL's
 * backslashed slashes: a text is repeated at most once, however many URLs it holds without white space.
 */
const URL_REST = /(?:[^\s<>"'`\\]|\\\/)*/uy;
/** A control character, which no host holds. */
const CONTROL = /^\p{Cc}$/u;
/** {@link STRING_ESCAPE} and {@link LEFT_ESCAPE} where their `lastIndex` is set. */
const STRING_ESCAPE_AT = new RegExp(STRING_ESCAPE.source, 'y');
const LEFT_ESCAPE_AT = new RegExp(LEFT_ESCAPE.source, 'y');

const CHUNK = 1 << 16;
const SPLIT = /(?<=\s)[A-Za-z]{5,}(?=\s)/g;

/**
 * The one form in which provenance compares values and content, applied alike to an argument's value and to
 * every text of the window, so that a trusted spelling of a value clears any other spelling of it:
 *
 * 0. string escapes read as what they stand for (`mail\nbilling@evil.example` reads `mail⏎billing@…`, `\u0040`
 *    and `\x40` read `@`), any escape left a break, so that a value in a tool's JSON is found as a model reads it;
 *    a `\` among a URL scheme's slashes read first as the WHATWG parser reads it, the host whole, without the tabs
 *    and line breaks it drops there (`https:\evil.example` and `https:⇥\evil.example` read
 *    `https://evil.example`; before an escape letter, both ways: `schemeSlashes`);
 * 1. Unicode NFKC, format characters (Cf) removed, every decimal digit (`\p{Nd}`) as ASCII, confusables folded to
 *    their UTS #39 prototype as spelled, then lower case (`confusableSkeleton`: `ВАNК` reads `bank`, every dash
 *    `-`, `。` in a host `.`, `ß` `ss`), a host's punycode labels in Unicode and
 *    folded alike (`unicodeHosts`: `xn--bcher-kva.example` reads `bücher.example`), white space collapsed; a line
 *    break, tab or paragraph separator is a hard break that no grouped value crosses (below), except an IBAN's
 *    groups (but in {@link vouchingForm});
 * 2. URLs without scheme, `www.` or trailing slash (`canonicalUrls`), their host in Unicode;
 * 3. IBANs without their group separators (`compactIbans`): spaces, dashes, dots or underscores, or a line break
 *    where a valid IBAN wraps (its check digits and its country's length say where it ends);
 * 4. numbers without thousands separators, exponents or trailing decimal zeros (`canonicalNumbers`), also in the
 *    unambiguous locale forms `10.000,50`, `10 000,50` and `10'000.50`;
 * 5. grouped digits without separators: `+1 (415) 555-0100` reads `+14155550100`, `030.123.4567` reads
 *    `0301234567`, `4111_1111` reads `41111111`; on one line only: `id 42⏎10000` reads `id 42 10000`.
 *
 * Linear in the text's length. Phone numbers are further compared in E.164 (`phoneForms`).
 *
 * @example canonicalForm('Pay ＤＥ89 3704 0044 0532 0130 00, https://www.Evil.Example/') === 'pay de89370400440532013000, evil.example'
 */
export function canonicalForm(text: string): string {
  return formOf(text, true, true);
}

/**
 * {@link canonicalForm} of content that vouches for values (trusted content, read by the positive rule and by the
 * negative rule's "in no trusted content"): a hard break ends an IBAN's groups too, as it ends every other grouped
 * value. Two lines, or two leaves of a labelled result (one a line), never make one IBAN there: an IBAN saved in two
 * halves and read back does not vouch for the whole (ADR 0173). What is looked for, and untrusted content, still read
 * a wrapped IBAN as one.
 *
 * @example vouchingForm('DE89 3704 0044\n0532 0130 00') === 'de8937040044 0532013000'
 */
export function vouchingForm(text: string): string {
  return formOf(text, true, false);
}

/**
 * {@link canonicalForm} with letters as they are spelled (punctuation look-alikes still fold): so that a Cyrillic
 * `раураl.com` is not the `paypal.com` a customer typed, while `415‑555‑0100` with non-breaking hyphens still is
 * `415-555-0100`. What a value found in trusted content by its canonical form
 * must also match there when folding changed it (`literallyIn`).
 *
 * @example literalForm('раураl.com') !== literalForm('paypal.com')
 */
export function literalForm(text: string): string {
  return formOf(text, false, true);
}

function formOf(escaped: string, fold: boolean, ibansWrap: boolean): string {
  const text = unescapeJson(escaped);
  if (text.length <= 2 * CHUNK) return canonicalChunk(text, fold, ibansWrap);
  // A long text is read in chunks of about 64 KB, so that every pass works on a string the processor's caches
  // hold: the cost per byte stays the same at 10 MB as at 100 KB. A chunk ends after a word of five ASCII letters
  // between white space, which no pass joins with what follows (grouped values have groups of four or digits).
  const parts: string[] = [];
  let start = 0;
  while (text.length - start > 2 * CHUNK) {
    SPLIT.lastIndex = start + CHUNK;
    const split = SPLIT.exec(text);
    if (split === null) break;
    const end = split.index + split[0].length;
    parts.push(canonicalChunk(text.slice(start, end), fold, ibansWrap));
    start = end;
  }
  parts.push(canonicalChunk(text.slice(start), fold, ibansWrap));
  return parts.filter((part) => part !== '').join(' ');
}

/**
 * A host's label `domainToUnicode` decoded, through the steps of {@link canonicalChunk} its letters go through had it
 * been spelled in Unicode: NFKC, format characters removed, digits as ASCII, lower case, confusables folded.
 */
function spellLabel(label: string, fold: boolean): string {
  const spelled = asciiDigits(label.normalize('NFKC').replace(FORMAT_CHARACTERS, ''));
  return fold ? confusableSkeleton(spelled) : confusableSkeletonOfNonLetters(spelled);
}

function canonicalChunk(text: string, fold: boolean, ibansWrap: boolean): string {
  // ASCII is its own NFKC form: skipping it spares a copy of most texts.
  const normalized = NON_ASCII.test(text) ? text.normalize('NFKC') : text;
  let hardBreaks = false;
  // A hard break reads `\n` while the passes run (they join groups across spaces, never across `\n`), then one
  // space; texts without one need no last pass. Every hard break, not only one beside a digit: a pass may drop a
  // separator beside it (`42/` then `-10000` on the next line would read `4210000`). White space goes before
  // confusables: the table folds the line and paragraph separators to a space.
  const spaced = asciiDigits(normalized.replace(FORMAT_CHARACTERS, '')).replace(WHITE_SPACE, (run: string) => {
    if (!HARD_BREAK.test(run)) return ' ';
    hardBreaks = true;
    return '\n';
  });
  // Confusables fold before lower case, which they include: a capital look-alike is folded as it is spelled
  // (Cyrillic `В` is the `B` it looks like, while its lower case `в` looks like no ASCII letter). A host's punycode
  // labels are decoded after punctuation folds (`xn‐‐` with Unicode hyphens is `xn--` too), each then spelled as its
  // Unicode would have been: a decoded look-alike (`раураl`) folds as one typed in Cyrillic does in the canonical
  // form, and keeps its letters in `literalForm`.
  const spell = (label: string) => spellLabel(label, fold);
  const folded = unicodeHosts(fold ? confusableSkeleton(spaced) : confusableSkeletonOfNonLetters(spaced), spell);
  const grouped = canonicalNumbers(compactIbans(canonicalUrls(folded.trim(), spell), ibansWrap))
    .replace(DOTTED_GROUPS, (groups) => groups.replaceAll('.', ''))
    .replace(DIGIT_SEPARATOR, '');
  return hardBreaks ? grouped.replaceAll('\n', ' ') : grouped;
}

/**
 * `text` with its string escapes decoded (see {@link STRING_ESCAPE}); a text without a backslash as it is. A URL
 * written with a `\` among or after its scheme's slashes is read first as the WHATWG parser reads it
 * ({@link schemeSlashes}), so that no escape eats its host's first letter; and once more after decoding, for a `\`
 * an escape stood for (`https:\u005cevil.example`).
 */
function unescapeJson(text: string): string {
  let decoded = schemeSlashes(text, true);
  for (let depth = 0; depth < ESCAPE_DEPTH && decoded.includes('\\'); depth++) {
    const next = decoded.replace(STRING_ESCAPE, decodedEscape);
    if (next === decoded) break;
    decoded = next;
  }
  if (!decoded.includes('\\')) return decoded;
  return schemeSlashes(decoded, false).replace(LEFT_ESCAPE, '\n');
}

/** What one escape {@link STRING_ESCAPE} matches stands for. */
function decodedEscape(escape: string): string {
  return escape.replace(STRING_ESCAPE, (_, code?: string, point?: string, byte?: string, char?: string) => {
    const hex = code ?? point ?? byte;
    if (hex === undefined) return ESCAPED[char!] ?? char!;
    const value = Number.parseInt(hex, 16);
    return value > 0x10ffff ? '\n' : String.fromCodePoint(value);
  });
}

/**
 * `text` with the slashes and backslashes after each special scheme's colon ({@link SCHEME_SLASHES}), one of them a
 * `\`, written `//`, as the WHATWG URL parser reads them: `https:\evil.example/claim` is `https://evil.example/claim`,
 * its host whole (ADR 0198). Where the last `\` stands before what an escape reads (a letter, octal digits) and
 * `escapes` is set (the text as written, before its escapes are decoded), that `\` may also be an escape a model
 * reads as what it stands for (`https:\nevil.example`: `https:`, a line break, `evil.example`): the URL is then read
 * both ways, the parser's reading, a break, then the escape's (decoded as {@link unescapeJson} decodes it, else a
 * break as {@link LEFT_ESCAPE} reads it). A tab or line break the parser drops in the scheme, around its colon or
 * among its slashes is dropped too, and such a run is written `//` even without a `\` (`https:⏎//evil.example`):
 * `ht⇥tps:⇥\evil.example` is `https://evil.example`, not `https:` and a host `vil.example` after an escape `\e`.
 * One scan; a text without a `:`, or without a `\`, tab or line break, as it is.
 */
function schemeSlashes(text: string, escapes: boolean): string {
  if (!text.includes(':') || (!text.includes('\\') && !URL_IGNORED_IN.test(text))) return text;
  const parts: string[] = [];
  let done = 0;
  SCHEME_SLASHES.lastIndex = 0;
  for (let found = SCHEME_SLASHES.exec(text); found !== null; found = SCHEME_SLASHES.exec(text)) {
    const [match, written, slashRun] = [found[0], found[1]!, found[2]!];
    // What the parser reads: the scheme and the slashes without the tabs and line breaks it drops.
    const [scheme, run] = [written.replace(URL_IGNORED, ''), slashRun.replace(URL_IGNORED, '')];
    const dropped = match.length !== scheme.length + 1 + run.length;
    // `file:` reads two slashes as the ones before its host; with more or fewer, it has no host to keep whole.
    if (found.index < done || !(run.includes('\\') || dropped) || (scheme.toLowerCase() === 'file' && run.length !== 2))
      continue;
    const slashes = `${scheme}://`;
    const end = found.index + match.length;
    parts.push(text.slice(done, found.index), slashes);
    done = end;
    if (!escapes || !run.endsWith('\\')) continue;
    STRING_ESCAPE_AT.lastIndex = LEFT_ESCAPE_AT.lastIndex = end - 1;
    const json = STRING_ESCAPE_AT.exec(text)?.[0];
    const escape = json ?? LEFT_ESCAPE_AT.exec(text)?.[0];
    if (escape === undefined) continue;
    // A control character an escape stands for (`\b`, `\f`) is in no host: a break, as what is left of an escape.
    const read = json === undefined ? '\n' : decodedEscape(json);
    URL_REST.lastIndex = end;
    // The parser's reading, then after a break the escape's: the URL repeated from its scheme.
    parts.push(URL_REST.exec(text)![0], '\n', slashes, CONTROL.test(read) ? '\n' : read);
    done = end - 1 + escape.length;
  }
  SCHEME_SLASHES.lastIndex = 0;
  if (parts.length === 0) return text;
  parts.push(text.slice(done));
  return parts.join('');
}
