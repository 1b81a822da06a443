import { domainToASCII, domainToUnicode } from 'node:url';

/** A URL with a scheme (`https://`), or starting with `www.`, up to white space or a quote. */
export const URL_TEXT = /(?<![\p{L}\p{N}@.+-])(?:[a-z][a-z0-9+.-]*:\/\/|www\.)[^\s<>"'`]+/gu;
export const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//u;
/**
 * The schemes the WHATWG URL parser reads `\` in as `/` (its special schemes); a URL written without one (`www.`) is
 * read as `http`.
 */
const SPECIAL_SCHEME = /^(?:https?|wss?|ftp|file):\/\/$/u;
/** Where a special URL's host ends, as the WHATWG parser reads it: at `/`, `\`, `?` or `#`. */
const SPECIAL_AUTHORITY_END = /[/\\?#]/u;
/** Where any other URL's authority ends, and where RFC 3986 reads every URL's authority to end. */
export const AUTHORITY_END = /[/?#]/u;
/** A special URL's path: up to its query or fragment, in which the parser keeps a `\` as it is. */
const SPECIAL_PATH = /^[^?#]*/u;
const TRAILING_PUNCTUATION = /[.,;:!?)\]]+$/u;
/** A slash that ends a URL's path: before white space, closing punctuation, a sentence's end or the text's end. */
const TRAILING_SLASH = /(?<=[\p{L}\p{N}])\/+(?=[\s)\]>"',;!?]|\.(?:\s|$)|$)/gu;
/**
 * A host name in lower-case text with a punycode label (`xn--`): labels of letters, marks, digits and hyphens, each
 * starting with a letter, mark or digit, joined by single dots. It starts where its run does (not after a letter,
 * digit or `_`, nor after hyphens or a dot that follow one: `foo-xn--bar.example` is one label), and is not followed
 * by another label, `_` or `@` (the local part of an e-mail address is not a host). Each run is scanned once.
 */
const PUNYCODE_HOST =
  /(?=[\p{L}\p{M}\p{N}])(?<![\p{L}\p{M}\p{N}_]-*|[\p{L}\p{M}\p{N}_-]\.)(?:[\p{L}\p{M}\p{N}][\p{L}\p{M}\p{N}-]*\.)*xn--[\p{L}\p{M}\p{N}-]*(?:\.[\p{L}\p{M}\p{N}][\p{L}\p{M}\p{N}-]*)*(?![\p{L}\p{M}\p{N}_@-]|\.[\p{L}\p{M}\p{N}])/gu;
const NON_ASCII = /[^\x00-\x7f]/u;

/**
 * The punycode labels (`xn--`) of hosts in lower-case text, in Unicode as `domainToUnicode` (UTS #46) decodes them,
 * each then spelled by `spell` (the canonical form's own steps, confusable folding among them): so that
 * `xn--bcher-kva.example/pay`, `billing@xn--bcher-kva.example` and `https://xn--bcher-kva.example` read as their
 * Unicode spellings `bücher.example/pay`, `billing@bücher.example` and `https://bücher.example` do. A bare host, a
 * URL's host and an e-mail address's domain alike; a single label too. A label is decoded only when it is the
 * A-label of what it decodes to (`domainToASCII` gives it back, and it is not ASCII): one that does not decode
 * (`xn--zz`) or is not the one spelling of its Unicode (`xn--abc-`, which the decoder reads `abc`) stays as written,
 * so two hosts DNS tells apart never read alike. Only a text holding `xn--` is searched.
 *
 * @example unicodeHosts('pay xn--bcher-kva.example', (label) => label) === 'pay bücher.example'
 */
export function unicodeHosts(lower: string, spell: (label: string) => string): string {
  if (!lower.includes('xn--')) return lower;
  // Each label decoded once per text: a host a text repeats costs one decoding.
  const decoded = new Map<string, string>();
  const unicodeLabel = (label: string): string => {
    let spelled = decoded.get(label);
    if (spelled === undefined) {
      const unicode = domainToUnicode(label);
      const aLabel = NON_ASCII.test(unicode) && !unicode.includes('.') && domainToASCII(unicode) === label;
      decoded.set(label, (spelled = aLabel ? spell(unicode) : label));
    }
    return spelled;
  };
  return lower.replace(PUNYCODE_HOST, (host) =>
    host
      .split('.')
      .map((label) => (label.startsWith('xn--') ? unicodeLabel(label) : label))
      .join('.'),
  );
}

/**
 * URLs as a host and a path: without scheme, `www.` or trailing slash, the host as the WHATWG URL parser reads
 * it (lower case, default port dropped, percent-escapes decoded), its punycode labels in Unicode as
 * {@link unicodeHosts} decodes and `spell`s them (only a label that is its Unicode's one A-label). In an `http(s)`,
 * `ws(s)`, `ftp` or `file` URL a `\` ends the host and is a `/` in the path, as the parser reads it:
 * `https://acme.example\public` reads `acme.example/public`, never the bare host `acme.example`.
 * `HTTPS://www.Evil.Example:443/pay/`, `evil.example/pay` and `www.evil.example/pay` all read `evil.example/pay`.
 *
 * @example canonicalUrls('see https://www.evil.example/pay/ now') === 'see evil.example/pay now'
 */
export function canonicalUrls(text: string, spell: (label: string) => string = (label) => label): string {
  const urls =
    text.includes('://') || text.includes('www.')
      ? text.replace(URL_TEXT, (match) => canonicalUrl(match, spell))
      : text;
  return urls.includes('/') ? urls.replace(TRAILING_SLASH, '') : urls;
}

function canonicalUrl(match: string, spell: (label: string) => string): string {
  const trailing = TRAILING_PUNCTUATION.exec(match)?.[0] ?? '';
  const url = match.slice(0, match.length - trailing.length);
  const scheme = SCHEME.exec(url)?.[0] ?? '';
  const schemeless = url.slice(scheme.length);
  // The parser reads the path of a special URL from a `\` on: cut at `/` only, the host would stand for the whole
  // URL, and a path written with backslashes would be dropped.
  const special = scheme === '' || SPECIAL_SCHEME.test(scheme);
  const authorityEnd = schemeless.search(special ? SPECIAL_AUTHORITY_END : AUTHORITY_END);
  const written = authorityEnd === -1 ? '' : schemeless.slice(authorityEnd);
  const rest = special ? written.replace(SPECIAL_PATH, (path) => path.replaceAll('\\', '/')) : written;
  let host = authorityEnd === -1 ? schemeless : schemeless.slice(0, authorityEnd);
  try {
    const parsed = new URL(scheme === '' ? `http://${url}` : url);
    if (parsed.hostname !== '')
      // The parser writes a host's Unicode (typed, or percent-escaped) in punycode: decoded as a bare host is.
      host = `${unicodeHosts(parsed.hostname, spell)}${parsed.port ? `:${parsed.port}` : ''}`;
  } catch {
    // Not a URL the parser accepts: compared as written, without its scheme.
  }
  return `${host.replace(/^www\./u, '')}${rest}${trailing}`;
}
