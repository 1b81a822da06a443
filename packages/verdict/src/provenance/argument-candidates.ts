import { renderPath } from '../context-release/release-path.js';
import { fingerprintString } from '../fingerprints/fingerprint.js';
import { isPlainObject } from '../shared/is-plain-object.js';
import { holdsAmbiguousUrlAuthority } from './ambiguous-url-authority.js';
import { canonicalForm, literalForm } from './canonical-form.js';
import { parsedUrls } from './parsed-urls.js';
import { type PhoneForms, phoneForms } from './phone-forms.js';
import { registrableDomain } from './registrable-domain.js';

/** A value of an argument that influence analysis looks for in the window. */
export interface ArgumentCandidate {
  /** The argument path, e.g. `recipient` or `items.0.iban`. */
  readonly path: string;
  /** The segments of {@link path}. */
  readonly segments: readonly string[];
  /** The value in canonical form (`canonicalForm`): the string compared with the window's text. */
  readonly needle: string;
  /** Whether this is the leaf's whole value (else a value found inside free text). */
  readonly whole: boolean;
  /** For a phone number: the forms it may be written in elsewhere (E.164, national). */
  readonly phone: PhoneForms | null;
  /**
   * When confusable folding changed the value's letters (`раураl.com` reads `paypal.com`): the value as its letters
   * spell it (`literalForm`). Absent when folding changed nothing.
   */
  readonly literal?: string;
  /**
   * When the value is a number written with a minus sign (`-5000`): the {@link needle} is its digits without the
   * sign, as the negative rule looks for them in untrusted content and the taint ledger fingerprints them, but it
   * occurs in trusted content only with its sign (`occursIn`): `-5000` is not derived from `5000`. Absent otherwise.
   */
  readonly minus?: true;
  /**
   * When the value holds a URL whose host two parsers may read differently (`holdsAmbiguousUrlAuthority`: a `\` or
   * `@` in its authority): it is never derived from, nor cleared by, trusted content. Absent otherwise.
   */
  readonly ambiguousUrl?: true;
  /**
   * When the candidate is the host of a URL or the domain of an e-mail address in the value (`evil.example` of
   * `https://evil.example/r` or `refunds@evil.example`): the negative rule looks for it in untrusted content as a whole
   * host (`WHOLE_HOST_EDGES`: not in `pay.evil.example`), and trusted content clears it as a host, a URL's host or an
   * address's domain. Absent otherwise (ADR 0198).
   */
  readonly host?: true;
  /**
   * When the candidate is the registrable domain of such a host (its public suffix and one label more: `evil.example`
   * of `pay.evil.example`, `attacker.github.io` of `pay.attacker.github.io`; `registrableDomain`), `host` too: the
   * negative rule looks for it in untrusted content as the domain of any whole host (`evil.example` in
   * `claims.evil.example`, not in `notevil.example` or `evil.example.com`), and trusted content that names any host of
   * that domain clears it. Absent otherwise (ADR 0202).
   */
  readonly domain?: true;
}

/** One string or number of the arguments: its whole value, and the candidates influence analysis looks for. */
export interface ArgumentLeaf {
  readonly path: string;
  readonly segments: readonly string[];
  /** The whole value in canonical form, whatever its length; `null` for a boolean or `null`. */
  readonly value: ArgumentCandidate | null;
  /** The candidates of the negative rule: the whole value when long enough, and values inside free text. */
  readonly candidates: readonly ArgumentCandidate[];
  /**
   * Further candidates of the negative rule: the host of each URL and the domain of each e-mail address in the value
   * (`host`), unless a candidate above is that host already. Never looked up in, nor recorded by, the taint ledger,
   * nor read by the positive rule: a host is not the value (ADR 0198).
   */
  readonly hosts: readonly ArgumentCandidate[];
  /**
   * The last candidates of the negative rule: the registrable domain of each host above, or of the value or a token
   * of it that is a host (`domain`), each once. None for an IP address, a single label or a public suffix, which
   * are only matched whole. Like {@link hosts}, never a value (ADR 0202).
   */
  readonly domains: readonly ArgumentCandidate[];
}

/** Candidates have four characters or more: shorter values occur in any text by chance. */
export const MIN_CANDIDATE_LENGTH = 4;
/** Numbers are candidates from 1,000 on (four digits). */
export const MIN_CANDIDATE_NUMBER = 1000;

/** A character of an e-mail address's local part, as {@link emailsIn} reads it back from the `@`. */
const LOCAL_PART = /[\p{L}\p{N}._%+-]/u;
/** An e-mail address's domain after its `@`, read where the expression's `lastIndex` is set. */
const EMAIL_DOMAIN = /[\p{L}\p{N}-]+(?:\.[\p{L}\p{N}-]+)+/uy;
/** A host name with an optional path (the canonical form has no scheme). */
const HOST = /(?<![\p{L}\p{N}@.-])(?:[\p{L}\p{N}-]+\.)+\p{L}{2,}(?::\d+)?(?:[/?#][^\s<>"']*)?/gu;
/**
 * The domain after any `@`, whatever stands before it: a quoted or commented local part (`"refunds"@evil.example`,
 * `refunds(x)@evil.example`) delivers to that domain too, though {@link emailsIn} does not read it (ADR 0198).
 */
const AT_DOMAIN = /@((?:[\p{L}\p{N}-]+\.)+\p{L}{2,})/gu;
/** Where the host of a {@link HOST} token ends: at its port, path, query or fragment. */
const HOST_END = /[:/?#]/u;
const IBAN = /(?<![\p{L}\p{N}])[a-z]{2}\d{2}[a-z0-9]{11,30}(?![\p{L}\p{N}])/gu;
const PHONE = /(?<![\p{L}\p{N}+])(?:\+|00)?\d{7,15}(?![\p{L}\p{N}])/gu;
/**
 * A token with a digit (order numbers, account ids, codes). Starts only where a run of its characters does: tried at
 * each character of a long run without a digit, it would cost the square of the run's length.
 */
const IDENTIFIER = /(?<![\p{L}\p{N}_-])[\p{L}\p{N}_-]*\p{N}[\p{L}\p{N}_-]*/gu;
/** The punctuation before a value, which {@link withoutEdgePunctuation} removes; a `+` (`+4930…`) stays. */
const LEADING_PUNCTUATION = /^[^\p{L}\p{N}+]+/u;
/** A minus sign before a number, after the leading punctuation {@link LEADING_PUNCTUATION} removes: `-5000`, `(-5000)`. */
const MINUS = /^[^\p{L}\p{N}+]*(?<=-)\d/u;
const NON_ASCII = /[^\x00-\x7f]/u;
const WORD_CHARACTER = /[\p{L}\p{N}]/u;
/** A punycode label, which the canonical form decodes to the Unicode letters it spells (`unicodeHosts`). */
const PUNYCODE = /xn--/iu;

/**
 * Every string and number leaf of validated arguments. A leaf's whole value, in canonical form, is a candidate
 * of the negative rule when it has four characters or more (a number: from 1,000), one word or several (an
 * address, a name); free text also contributes the e-mail addresses, URLs, IBANs, phone numbers and
 * digit-bearing identifiers it contains, and every string the hosts of its URLs and the domains of its e-mail
 * addresses (`hosts`). Booleans and `null` are never candidates.
 */
export function argumentLeaves(args: unknown): readonly ArgumentLeaf[] {
  const out: ArgumentLeaf[] = [];
  const walk = (value: unknown, segments: string[]): void => {
    if (Array.isArray(value)) value.forEach((item, i) => walk(item, [...segments, String(i)]));
    else if (isPlainObject(value))
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) walk(item, [...segments, key]);
    else if (typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value)))
      out.push(leafOf(value, segments));
    else out.push({ path: renderPath(segments), segments, value: null, candidates: [], hosts: [], domains: [] });
  };
  walk(args, []);
  return out;
}

/** The candidates of every leaf (see {@link argumentLeaves}). */
export function argumentCandidates(args: unknown): readonly ArgumentCandidate[] {
  return argumentLeaves(args).flatMap((leaf) => leaf.candidates);
}

/**
 * The fingerprint of a candidate's canonical value, `sha256(needle)`: what a taint ledger stores and looks up.
 *
 * @example candidateFingerprint(argumentCandidates({ iban: 'DE89 3704 0044 0532 0130 00' })[0])
 */
export function candidateFingerprint(candidate: Pick<ArgumentCandidate, 'needle'>): string {
  return fingerprintString(candidate.needle);
}

function leafOf(raw: string | number, segments: readonly string[]): ArgumentLeaf {
  const path = renderPath(segments);
  const canonical = canonicalForm(String(raw));
  // A value in ASCII is its own literal form, but for a punycode host or a URL's percent-escaped host, whose
  // decoded letters folding may change.
  const literal =
    typeof raw === 'string' && (NON_ASCII.test(raw) || (raw.includes('--') && PUNYCODE.test(raw)) || raw.includes('%'))
      ? literalForm(raw)
      : canonical;
  const candidate = (
    needle: string,
    whole: boolean,
    spelled?: string,
    minus = false,
    host = false,
  ): ArgumentCandidate => ({
    path,
    segments,
    needle,
    whole,
    phone: host || needle.includes(' ') ? null : phoneForms(needle),
    ...(spelled === undefined || spelled === needle ? {} : { literal: spelled }),
    ...(minus ? { minus: true as const } : {}),
    ...(host ? { host: true as const } : {}),
  });
  const whole = candidate(
    withoutEdgePunctuation(canonical),
    true,
    withoutEdgePunctuation(literal),
    MINUS.test(canonical),
  );
  // Read on the value as the executor gets it: the canonical form has read one of the hosts already.
  const value =
    typeof raw === 'string' && holdsAmbiguousUrlAuthority(raw) ? { ...whole, ambiguousUrl: true as const } : whole;
  const candidates: ArgumentCandidate[] = [];
  const seen = new Set<string>();
  const add = (found: ArgumentCandidate) => {
    // A look-alike and the value it imitates are two candidates: each is spelled its own way.
    const key = `${found.needle}\u0000${found.literal ?? ''}`;
    if (found.needle.length < MIN_CANDIDATE_LENGTH || seen.has(key)) return;
    seen.add(key);
    candidates.push(found);
  };
  if (typeof raw === 'string' || Math.abs(raw) >= MIN_CANDIDATE_NUMBER) add(value);
  // The URLs of the value as the executor's parser reads them (`https://evil-re⇥funds.example/r`).
  const urls = typeof raw === 'string' ? [...parsedUrls(raw)] : [];
  // Where the parser dropped a tab or line break the canonical form reads as a break: the URL it reads, too.
  for (const { href } of urls.filter(({ dropped }) => dropped)) {
    const [needle, spelled] = [canonicalForm(href), literalForm(href)].map((form) => withoutEdgePunctuation(form));
    add(candidate(needle!, false, spelled));
  }
  if (typeof raw === 'string' && canonical.includes(' ')) {
    if (literal === canonical) for (const token of valueTokens(canonical)) add(candidate(token, false));
    // Folded free text: each token as its letters spell it (`иван@пример.рф`), found by what it folds to.
    else for (const spelled of valueTokens(literal)) add(candidate(canonicalForm(spelled), false, spelled));
  }
  // Each host and domain once, unless the value or a token of it is that host already (found more loosely).
  const hosts: ArgumentCandidate[] = [];
  const domains: ArgumentCandidate[] = [];
  const spelledHosts = typeof raw === 'string' ? [...hostsIn(literal)] : [];
  for (const [needle, spelled] of [
    ...spelledHosts.map((spelled) => [literal === canonical ? spelled : canonicalForm(spelled), spelled] as const),
    // And each host the parser reads, lower case and in punycode as it writes it: read as the canonical form reads it.
    ...urls.map(({ hostname }) => [canonicalForm(hostname), literalForm(hostname)] as const),
  ]) {
    const domain = domainOf(candidate, needle, spelled);
    if (domain !== null && !seen.has(`\u0001${domain.needle}\u0000${domain.literal ?? ''}`)) {
      seen.add(`\u0001${domain.needle}\u0000${domain.literal ?? ''}`);
      domains.push(domain);
    }
    const host = candidate(needle, false, spelled, false, true);
    const key = `${host.needle}\u0000${host.literal ?? ''}`;
    if (host.needle.length < MIN_CANDIDATE_LENGTH || seen.has(key)) continue;
    seen.add(key);
    hosts.push(host);
  }
  return { path, segments, value, candidates, hosts, domains };
}

/**
 * The registrable domain of a host of the value, spelled as the host is (`registrableDomain`), as a candidate
 * (`domain`); `null` where the host has none (an IP address, a single label, a public suffix). Where folding changed
 * the host's letters, the domain is spelled as the same last labels of the host's own spelling, else as the whole host:
 * trusted content clears a look-alike's domain only as it spells it.
 */
function domainOf(
  candidate: (needle: string, whole: boolean, spelled?: string, minus?: boolean, host?: boolean) => ArgumentCandidate,
  needle: string,
  spelled: string,
): ArgumentCandidate | null {
  const domain = registrableDomain(needle);
  if (domain === null || domain.length < MIN_CANDIDATE_LENGTH) return null;
  const labels = domain.split('.').length;
  const spelledLabels = spelled.replace(/\.+$/u, '').split('.');
  const literal =
    spelled === needle || spelledLabels.length < labels ? spelled : spelledLabels.slice(-labels).join('.');
  return { ...candidate(domain, false, literal === needle ? domain : literal, false, true), domain: true };
}

/**
 * The domain of each e-mail address, or after any `@` ({@link AT_DOMAIN}: `"refunds"@evil.example`), and the host of
 * each URL or host name ({@link HOST}) in canonical text, without port: what the negative rule also looks for as a
 * whole host, so that a new path or mailbox on an injected host is found (ADR 0198). The hosts the URL parser reads
 * (`parsedUrls`) are added by the caller.
 *
 * @example [...hostsIn('go to evil.example/r or write to refunds@evil.example')] // ['evil.example', 'evil.example', 'evil.example']
 */
function* hostsIn(canonical: string): Generator<string> {
  if (!canonical.includes('.')) return;
  for (const address of emailsIn(canonical)) yield address.slice(address.lastIndexOf('@') + 1);
  for (const [, domain] of canonical.matchAll(AT_DOMAIN)) yield domain!;
  for (const [url] of canonical.matchAll(HOST)) {
    const end = url.search(HOST_END);
    yield end === -1 ? url : url.slice(0, end);
  }
}

/**
 * The value-like tokens of canonical text (`canonicalForm`), in this order: e-mail addresses, URLs and hosts,
 * IBANs, phone numbers, digit-bearing identifiers. What free text contributes as candidates, and what the
 * compact check (`compactOccurrences`) looks for of untrusted content.
 *
 * @example [...valueTokens('mail mallory@evil.example')] // ['mallory@evil.example']
 */
export function* valueTokens(canonical: string): Generator<string> {
  yield* emailsIn(canonical);
  for (const pattern of [HOST, IBAN, PHONE, IDENTIFIER])
    for (const match of canonical.matchAll(pattern)) yield match[0];
}

/**
 * The e-mail addresses of text, left to right and apart: a local part of letters, digits and `._%+-`, an `@`, and a
 * domain of two labels or more. Found from each `@`, the local part read back no further than the address before
 * it, so that the cost grows with the text's length, not with the square of a long run without a space (a hex blob
 * in a tool result, ADR 0202); an address glued after punctuation (`(billing@x.example)`, `mailto:billing@…`) or
 * after another address (`a@x.example+b@y.example`) is found as before.
 *
 * @example [...emailsIn('mail mallory@evil.example')] // ['mallory@evil.example']
 */
function* emailsIn(text: string): Generator<string> {
  let after = 0;
  for (let at = text.indexOf('@'); at !== -1; at = text.indexOf('@', at + 1)) {
    let start = at;
    while (start > after && LOCAL_PART.test(characterBefore(text, start))) start -= characterBefore(text, start).length;
    if (start === at) continue;
    EMAIL_DOMAIN.lastIndex = at + 1;
    if (EMAIL_DOMAIN.exec(text) === null) continue;
    after = EMAIL_DOMAIN.lastIndex;
    yield text.slice(start, after);
    at = after - 1;
  }
}

/** The whole code point that ends just before `end`: a surrogate pair read as one character. */
function characterBefore(text: string, end: number): string {
  const low = text.charCodeAt(end - 1);
  const high = end >= 2 ? text.charCodeAt(end - 2) : 0;
  return low >= 0xdc00 && low <= 0xdfff && high >= 0xd800 && high <= 0xdbff ? text.slice(end - 2, end) : text[end - 1]!;
}

/**
 * A value without the punctuation around it: before it ({@link LEADING_PUNCTUATION}), and after it every character
 * that is not a letter or digit, read back from its end so that a long run of punctuation costs its length once.
 */
function withoutEdgePunctuation(value: string): string {
  const trimmed = value.replace(LEADING_PUNCTUATION, '');
  let end = trimmed.length;
  while (end > 0 && !WORD_CHARACTER.test(characterBefore(trimmed, end))) end -= characterBefore(trimmed, end).length;
  return trimmed.slice(0, end);
}
