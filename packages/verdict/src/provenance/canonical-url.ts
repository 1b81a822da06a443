import { domainToUnicode } from 'node:url';

/** A URL with a scheme (`https://`), or starting with `www.`, up to white space or a quote. */
const URL_TEXT = /(?<![\p{L}\p{N}@.+-])(?:[a-z][a-z0-9+.-]*:\/\/|www\.)[^\s<>"'`]+/gu;
const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//u;
const TRAILING_PUNCTUATION = /[.,;:!?)\]]+$/u;
/** A slash that ends a URL's path: before white space, closing punctuation, a sentence's end or the text's end. */
const TRAILING_SLASH = /(?<=[\p{L}\p{N}])\/+(?=[\s)\]>"',;!?]|\.(?:\s|$)|$)/gu;

/**
 * URLs as a host and a path: without scheme, `www.` or trailing slash, the host as the WHATWG URL parser reads
 * it (lower case, default port dropped, Unicode rather than punycode). `HTTPS://www.Evil.Example:443/pay/`,
 * `evil.example/pay` and `www.evil.example/pay` all read `evil.example/pay`.
 *
 * @example canonicalUrls('see https://www.evil.example/pay/ now') === 'see evil.example/pay now'
 */
export function canonicalUrls(text: string): string {
  const urls = text.includes('://') || text.includes('www.') ? text.replace(URL_TEXT, canonicalUrl) : text;
  return urls.includes('/') ? urls.replace(TRAILING_SLASH, '') : urls;
}

function canonicalUrl(match: string): string {
  const trailing = TRAILING_PUNCTUATION.exec(match)?.[0] ?? '';
  const url = match.slice(0, match.length - trailing.length);
  const scheme = SCHEME.exec(url)?.[0] ?? '';
  const schemeless = url.slice(scheme.length);
  const authorityEnd = schemeless.search(/[/?#]/u);
  const rest = authorityEnd === -1 ? '' : schemeless.slice(authorityEnd);
  let host = authorityEnd === -1 ? schemeless : schemeless.slice(0, authorityEnd);
  try {
    const parsed = new URL(scheme === '' ? `http://${url}` : url);
    if (parsed.hostname !== '')
      host = `${domainToUnicode(parsed.hostname) || parsed.hostname}${parsed.port ? `:${parsed.port}` : ''}`;
  } catch {
    // Not a URL the parser accepts: compared as written, without its scheme.
  }
  return `${host.replace(/^www\./u, '')}${rest}${trailing}`;
}
