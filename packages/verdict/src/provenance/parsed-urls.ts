/** The WHATWG URL parser's special schemes: those it reads a host in, and a `\` as a `/` (ADR 0164). */
const SPECIAL_PROTOCOLS: ReadonlySet<string> = new Set(['http:', 'https:', 'ws:', 'wss:', 'ftp:', 'file:']);
/**
 * A special scheme and its colon, with the ASCII tabs, line feeds and carriage returns the parser drops anywhere in a
 * URL (`ht⇥tps:`). Each run of them lies between two fixed characters: linear.
 */
const SPECIAL_SCHEME =
  /(?<![\p{L}\p{N}+.-])(?:h[\t\n\r]*t[\t\n\r]*t[\t\n\r]*p(?:[\t\n\r]*s)?|w[\t\n\r]*s(?:[\t\n\r]*s)?|f[\t\n\r]*t[\t\n\r]*p|f[\t\n\r]*i[\t\n\r]*l[\t\n\r]*e)[\t\n\r]*:/giu;
/** What a URL holds after its scheme: up to white space, a quote or an angle bracket, but a tab or line break. */
const URL_AFTER_SCHEME = /^(?:[^\s<>"'`]|[\t\n\r])*/u;
/** What the parser drops from a URL before it reads it. */
const URL_IGNORED = /[\t\n\r]/u;

/** A URL of a value as the WHATWG URL parser reads it. */
export interface ParsedUrl {
  /** Its host as the parser writes it: lower case, a Unicode label in punycode (`xn--`). Never empty. */
  readonly hostname: string;
  /** The whole URL as the parser writes it (`https://evil.example/r`). */
  readonly href: string;
  /** Whether the parser dropped a tab or line break of it, which the canonical form reads as a break. */
  readonly dropped: boolean;
}

/**
 * The URLs with a special scheme (`http(s)`, `ws(s)`, `ftp`, `file`) in a value, as the WHATWG URL parser (Node's
 * `URL`, with which an executor reads them) reads them: the whole value when it parses, and each URL in it from its
 * scheme up to white space, a quote, an angle bracket or the next such scheme, a tab or line break in it dropped as the
 * parser drops them (`https://evil-re⇥funds.example/r` has the host `evil-refunds.example`). A URL the parser refuses,
 * or that has no host, is left out. The text is scanned once: each URL ends where the next scheme begins.
 *
 * @example [...parsedUrls('go to https://evil-re\tfunds.example/r')][0].hostname === 'evil-refunds.example'
 */
export function* parsedUrls(value: string): Generator<ParsedUrl> {
  if (!value.includes(':')) return;
  const whole = parsedUrl(value);
  if (whole !== null) yield whole;
  const schemes = [...value.matchAll(SPECIAL_SCHEME)];
  for (const [i, found] of schemes.entries()) {
    const colon = found.index + found[0].length;
    // Up to the next scheme at most: no character is read twice.
    const rest = URL_AFTER_SCHEME.exec(value.slice(colon, schemes[i + 1]?.index ?? value.length))![0];
    const url = parsedUrl(value.slice(found.index, colon + rest.length));
    if (url !== null && (whole === null || url.href !== whole.href)) yield url;
  }
}

/** `text` as the parser reads it, when it is a URL with a special scheme and a host. */
function parsedUrl(text: string): ParsedUrl | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  const { protocol, hostname, href } = url;
  if (!SPECIAL_PROTOCOLS.has(protocol) || hostname === '') return null;
  return { hostname, href, dropped: URL_IGNORED.test(text) };
}
