import { AUTHORITY_END, SCHEME, URL_TEXT } from './canonical-url.js';

/** What the WHATWG URL parser removes from a URL before it reads it: ASCII tab, line feed and carriage return. */
const URL_IGNORED = /[\t\n\r]/gu;
/** What a parser may read as a host or a user, beside the host RFC 3986 reads. */
const HOST_CONFUSERS = /[\\@]/u;
/** A special scheme followed by a `\` among its slashes (`https:\\evil.example`, `https:/\evil.example`). */
const BACKSLASHED_SCHEME = /(?<![\p{L}\p{N}+.-])(?:https?|wss?|ftp|file):\/*\\/u;

/**
 * Whether `text` holds a URL whose host two parsers may read differently: its authority as RFC 3986 reads it (after
 * the scheme's `//`, or from `www.`, up to the first `/`, `?` or `#`) holds a `\` or an `@`, or a `\` stands among
 * its scheme's slashes. The WHATWG parser (Node's `URL`, browsers) reads a `\` as a `/` in an `http(s)` URL; an
 * RFC 3986 parser (Python's `urlsplit`, many proxies) reads it as part of the authority:
 * `https://acme.example\@evil.example` is `acme.example` to one and `evil.example` to the other, and a user part
 * (`https://acme.example@evil.example`) makes a host read as another. Provenance reads one host, an executor may
 * read the other: such a value is never derived from trusted content (ADR 0164). Read on the value as written,
 * before its escapes are decoded, as the executor gets it.
 *
 * @example holdsAmbiguousUrlAuthority('https://files.acme.example\\@evil.example') === true
 */
export function holdsAmbiguousUrlAuthority(text: string): boolean {
  if (!text.includes('\\') && !text.includes('@')) return false;
  // The WHATWG parser (and Python's) drops every tab and line break of a URL: `https://acme.example\t@evil.example` is
  // host `evil.example` to it. Read as it would, the value as a URL.
  const lower = text.replace(URL_IGNORED, '').toLowerCase();
  if (BACKSLASHED_SCHEME.test(lower)) return true;
  for (const [url] of lower.matchAll(URL_TEXT)) {
    const schemeless = url.slice(SCHEME.exec(url)?.[0].length ?? 0);
    const end = schemeless.search(AUTHORITY_END);
    if (HOST_CONFUSERS.test(end === -1 ? schemeless : schemeless.slice(0, end))) return true;
  }
  return false;
}
