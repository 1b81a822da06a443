/**
 * Where a value found in canonical text may start and end: whether what stands before its first character, or after
 * its last, continues it. Two strictnesses, one per rule and per side of its failure:
 *
 * - {@link TOKEN_EDGES}, for trusted content (the positive rule, and the trusted content that clears a value of the
 *   negative rule): a value occurs only as a whole value-like token, so a trusted `billing@acme.co.uk` derives
 *   neither `billing@acme.co` nor `acme.co`, `mary-jane@gmail.com` not `jane@gmail.com`, `5000.75` not `5000` and
 *   `5000` not `-5000`. Too strict here fails closed;
 * - {@link WORD_EDGES}, for untrusted content (the negative rule): a value occurs wherever it is not glued to a
 *   letter or digit, also inside a longer token (an injected `mary-jane@gmail.com` still holds `jane@gmail.com`).
 *   Too strict here would fail open.
 */
export interface TokenEdges {
  /** Whether what stands before `start` continues the token at `start`, so that no value starts there. */
  continuesBefore(text: string, start: number): boolean;
  /** Whether what stands at `end` continues the token that reaches `end`, so that no value ends there. */
  continuesAfter(text: string, end: number): boolean;
}

const WORD = /[\p{L}\p{N}]/u;
const LETTER = /\p{L}/u;

/** The whole code point at `at`, or the one a low surrogate at `at` ends. */
function codePointAt(text: string, at: number): string {
  const code = text.codePointAt(at)!;
  return code >= 0xdc00 && code <= 0xdfff && at > 0
    ? String.fromCodePoint(text.codePointAt(at - 1)!)
    : String.fromCodePoint(code);
}

/** Whether the character at `at` is a letter or digit (outside the text: not). */
export function isWord(text: string, at: number): boolean {
  return at >= 0 && at < text.length && WORD.test(codePointAt(text, at));
}

/**
 * A letter of a script written without spaces between words: Han, Hiragana, Katakana, Hangul (by script extension, so
 * `ー` and `々` count too).
 */
const UNSPACED = /[\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}]/u;

function isUnspaced(text: string, at: number): boolean {
  return at >= 0 && at < text.length && UNSPACED.test(codePointAt(text, at));
}

/**
 * Whether the letter or digit at `at` continues the value whose edge character stands at `edge`, in untrusted content:
 * not where the script changes between one written without spaces and any other (`退款请访问evil.example领取`,
 * `返金はbilling@evil.exampleまで`): prose in Chinese, Japanese or Korean glues a value to its words (ADR 0198).
 */
function continuesInUntrusted(text: string, at: number, edge: number): boolean {
  return isWord(text, at) && isUnspaced(text, at) === isUnspaced(text, edge);
}

function isLetter(text: string, at: number): boolean {
  return at >= 0 && at < text.length && LETTER.test(codePointAt(text, at));
}

function isDigit(text: string, at: number): boolean {
  const code = text.charCodeAt(at);
  return code >= 48 && code <= 57;
}

/**
 * Characters that join the parts of one value-like token, on either side of a value, when a letter or digit stands
 * beyond them: a host's and a decimal's dot, a name's or an id's hyphen and underscore, an address's sub-address
 * `+` and `@`, a path's slashes, a percent-escape, `~` and a fragment's `#`.
 */
const JOINERS = new Set(['.', '-', '_', '+', '@', '/', '\\', '%', '~', '#']);
/**
 * Characters that continue a token after it (`acme.com:8080`, `acme.com/pay?to=…`, `…&amount=5`) but, before a
 * value, end the label it follows: `mailto:jane@x.com`, `tel:+1…`, `email:…`, `?to=jane@x.com` hold the value.
 */
const TRAILING_JOINERS = new Set([':', '?', '=', '&']);
/** Characters that continue a token before it only: `o'brien@x.com`; after a value, `'s` is prose. */
const LEADING_JOINERS = new Set(["'"]);

/** Whether the joiner at `at` joins what stands after it to the token before it. */
function joinsAfter(text: string, at: number): boolean {
  const character = text[at] ?? '';
  return (JOINERS.has(character) || TRAILING_JOINERS.has(character)) && isWord(text, at + 1);
}

/**
 * Top-level domains of three letters or more common enough to follow a host's last label (`acme.uk.com`,
 * `acme.com.net`): {@link endsSentence} never reads one as a sentence's next word.
 */
const COMMON_TLDS = new Set([
  ...['com', 'net', 'org', 'edu', 'gov', 'mil', 'int', 'info', 'biz', 'name', 'pro', 'aero', 'coop', 'museum'],
  ...['mobi', 'asia', 'tel', 'travel', 'jobs', 'cat', 'arpa', 'app', 'dev', 'xyz', 'online', 'site', 'shop'],
  ...['store', 'tech', 'cloud', 'top', 'club', 'live', 'blog', 'page', 'link', 'email', 'website', 'space'],
]);
/**
 * A word of three letters or more, read where the expression's `lastIndex` is set, in a script written with spaces:
 * it ends where Chinese, Japanese or Korean prose begins (`org` of `org领取`).
 */
const WORD_AT = /(?:(?![\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}])\p{L}){3,}/uy;

/**
 * Whether the full stop at `end` ends a sentence whose next word follows it without a space, right after a host:
 * `www.our-company.com.They sent …` (canonical `our-company.com.they sent …`). The text before it ends in a label of
 * two letters or more after a dot (a host's last label); after it stands one word of three letters or more that is
 * not a common top-level domain, and nothing joins that word to more. A two-letter label after the dot is a country
 * code and continues the host (`acme.co.uk`), as do further labels (`acme.com.evil.net`). Chinese, Japanese or Korean
 * prose after a host in another script begins a sentence too (`evil.example.他们会处理`).
 */
function endsSentence(text: string, end: number): boolean {
  let label = end;
  while (isLetter(text, label - 1)) label--;
  if (end - label < 2 || text[label - 1] !== '.') return false;
  // Chinese, Japanese or Korean prose after a host in another script: `evil.example.请访问…`.
  if (isUnspaced(text, end + 1) !== isUnspaced(text, end - 1)) return isWord(text, end + 1);
  WORD_AT.lastIndex = end + 1;
  const word = WORD_AT.exec(text)?.[0];
  if (word === undefined || COMMON_TLDS.has(word)) return false;
  const after = end + 1 + word.length;
  return !continuesInUntrusted(text, after, after - 1) && !joinsAfter(text, after);
}

/** A whole value-like token: see {@link TokenEdges}. */
export const TOKEN_EDGES: TokenEdges = {
  continuesBefore(text, start) {
    if (start <= 0) return false;
    if (isWord(text, start - 1)) return true;
    const character = text[start - 1]!;
    // A minus sign: `-5000` is not `5000`, whatever stands before it.
    if (character === '-' && isDigit(text, start)) return true;
    // A decimal comma or a list without spaces: `5000,75` holds neither `5000` nor `75`.
    if (character === ',') return isDigit(text, start - 2) && isDigit(text, start);
    return (JOINERS.has(character) || LEADING_JOINERS.has(character)) && isWord(text, start - 2);
  },
  continuesAfter(text, end) {
    if (end >= text.length) return false;
    if (isWord(text, end)) return true;
    const character = text[end]!;
    if (character === ',') return isDigit(text, end - 1) && isDigit(text, end + 1);
    if (character === '.' && endsSentence(text, end)) return false;
    return joinsAfter(text, end);
  },
};

/** What ends a URL's host: its path, query or fragment. */
const HOST_ENDS = new Set(['/', '?', '#']);

/**
 * {@link TOKEN_EDGES} for a host name (`acme.example`, `acme.example:8443`): a URL's host and an e-mail address's
 * domain are the host too, so a path, query or fragment may follow it (`acme.example/pay`) and a mailbox precede it
 * (`billing@acme.example`). Its labels still join: `acme.co` is not the host of `acme.co.uk/pay`, nor `acme.example`
 * that of `mail.acme.example`.
 */
export const HOST_EDGES: TokenEdges = {
  continuesBefore: (text, start) => text[start - 1] !== '@' && TOKEN_EDGES.continuesBefore(text, start),
  continuesAfter: (text, end) => !HOST_ENDS.has(text[end] ?? '') && TOKEN_EDGES.continuesAfter(text, end),
};

/** What joins a host's labels, or a longer name to a host: `pay.evil.example`, `my-evil.example`. */
const LABEL_JOINERS = new Set(['.', '-', '_']);

/**
 * A whole host in untrusted content, as the negative rule looks for the host of an argument's URL or the domain of its
 * e-mail address (ADR 0198): not glued to a letter or digit, nor to another label by a dot, hyphen or underscore.
 * `evil.example` is found in `https://evil.example/claim`, `billing@evil.example`, `evil.example:8443` and `go to
 * evil.example.`, and glued to Chinese, Japanese or Korean prose (`请访问evil.example领取`), but not in
 * `pay.evil.example`, `my-evil.example` or `evil.example.com`. Looser than
 * {@link HOST_EDGES} after the host (a port, a user part) and in a path or query (`?to=evil.example`): missing a host
 * there would fail open.
 */
export const WHOLE_HOST_EDGES: TokenEdges = {
  continuesBefore: (text, start) =>
    continuesInUntrusted(text, start - 1, start) ||
    (LABEL_JOINERS.has(text[start - 1] ?? '') && isWord(text, start - 2)),
  continuesAfter: (text, end) =>
    continuesInUntrusted(text, end, end - 1) ||
    (LABEL_JOINERS.has(text[end] ?? '') && isWord(text, end + 1) && !(text[end] === '.' && endsSentence(text, end))),
};

/** A host name, with an optional port, in canonical form. */
const HOST_NAME = /^(?:[\p{L}\p{M}\p{N}-]+\.)+[\p{L}\p{M}]{2,}(?::\d+)?$/u;

/** The edges a value found in trusted content must have: {@link HOST_EDGES} for a host name, else {@link TOKEN_EDGES}. */
export function trustedEdgesOf(needle: string): TokenEdges {
  return HOST_NAME.test(needle) ? HOST_EDGES : TOKEN_EDGES;
}

/**
 * Any value not glued to a letter or digit: see {@link TokenEdges}. A change of script between one written without
 * spaces (Han, Hiragana, Katakana, Hangul) and any other is an edge too: `5000` in `5000円`.
 */
export const WORD_EDGES: TokenEdges = {
  continuesBefore: (text, start) => continuesInUntrusted(text, start - 1, start),
  continuesAfter: (text, end) => continuesInUntrusted(text, end, end - 1),
};
