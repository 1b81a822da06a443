import { getDomain } from 'tldts';

/**
 * The Public Suffix List as tldts reads it, with its private section (`github.io`, `blogspot.com`: each user's site is
 * a registrable domain of its own), on a host name already in canonical form (lower case, punycode in Unicode): no
 * URL to extract, and a label the list does not know (`_dmarc`, `-x`) is read as written rather than refused.
 */
const OPTIONS = {
  allowPrivateDomains: true,
  extractHostname: false,
  mixedInputs: false,
  validateHostname: false,
} as const;

/** How many host names {@link registrableDomain} remembers; past that the oldest is forgotten. */
const CACHE_LIMIT = 2048;
const cache = new Map<string, string | null>();

/**
 * The registrable domain of a host name in canonical form: its public suffix and one label more (`evil.example` of
 * `pay.evil.example`, `evil.co.uk` of `a.b.evil.co.uk`, `attacker.github.io` of `pay.attacker.github.io`), trailing
 * dots ignored. `null` where there is none — an IP address, a single label (`localhost`, `intranet`), a public or
 * private suffix itself (`co.uk`, `github.io`), an empty label: such a host is only ever matched whole (ADR 0202).
 * A host under a top-level domain the list does not know (`.example`) has that label as its suffix. Remembered per
 * host name, up to {@link CACHE_LIMIT} of them: it is asked for the few hosts of an argument and the hosts of
 * untrusted content that end with one of their domains, never per character of content.
 *
 * @example registrableDomain('pay.evil.example') // 'evil.example'
 */
export function registrableDomain(host: string): string | null {
  const known = cache.get(host);
  if (known !== undefined) return known;
  const name = host.replace(/\.+$/u, '');
  const found = name.includes('.') && !name.includes('..') ? getDomain(name, OPTIONS) : null;
  const domain = found === null || found === '' || found.startsWith('.') || found.startsWith('-') ? null : found;
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(host, domain);
  return domain;
}
