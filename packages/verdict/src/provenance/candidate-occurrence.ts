import type { ArgumentCandidate } from './argument-candidates.js';
import { phoneOccursIn } from './phone-forms.js';
import { registrableDomain } from './registrable-domain.js';
import {
  HOST_EDGES,
  TOKEN_EDGES,
  type TokenEdges,
  WHOLE_HOST_EDGES,
  WORD_EDGES,
  isWord,
  trustedEdgesOf,
} from './token-edges.js';

/**
 * Whether a candidate occurs in canonical text as a whole value-like token, as trusted content must hold a value to
 * derive it or to clear it (the positive rule; the negative rule's "and in no trusted content"): not as part of a
 * longer word or number (`acct-1234` does not occur in `acct-12345`), nor cut from a longer value at a character
 * that joins its parts (`TOKEN_EDGES`: `billing@acme.co` does not occur in `billing@acme.co.uk`, `jane@gmail.com`
 * not in `mary-jane@gmail.com`, `5000` not in `5000.75` or `-5000`). Sentence punctuation still ends a value:
 * `billing@acme.co.uk.`, `(5000)`, `5000,` and `"jane@gmail.com"` hold theirs. A host name occurs as a URL's host
 * and an e-mail address's domain too (`HOST_EDGES`: `acme.co.uk` in `acme.co.uk/pay` and `billing@acme.co.uk`). A
 * number written with a minus sign occurs only with it. A phone number occurs in any of its forms (`phoneForms`). A
 * registrable domain (`domain`) occurs as the domain of any host (`HOST_EDGES`): `acme.example` in
 * `www.acme.example/pay`.
 */
export function occursIn(
  text: string,
  candidate: Pick<ArgumentCandidate, 'needle' | 'phone' | 'minus'> & Pick<Partial<ArgumentCandidate>, 'domain'>,
): boolean {
  if (candidate.domain === true) return domainOccurs(text, candidate.needle, HOST_EDGES);
  if (candidate.minus === true) return occurs(text, `-${candidate.needle}`, TOKEN_EDGES);
  if (candidate.phone !== null) return phoneOccursIn(text, candidate.phone, TOKEN_EDGES);
  return occurs(text, candidate.needle, trustedEdgesOf(candidate.needle));
}

/**
 * Whether a candidate occurs in canonical text where no letter or digit is glued to it (`WORD_EDGES`), also inside a
 * longer value and whatever its sign: how the negative rule looks for an argument's value in untrusted content,
 * where missing it would fail open (an injected `mary-jane@gmail.com` holds `jane@gmail.com`, `5000.75` holds `5000`,
 * `-5000` holds `5000`). `acct-1234` still does not occur in `acct-12345`. A URL's host or an address's domain
 * (`host`) occurs as a whole host (`WHOLE_HOST_EDGES`): `evil.example` not in `pay.evil.example`; a registrable
 * domain (`domain`) as the domain of any whole host: `evil.example` in `pay.evil.example`, not in `evil.example.com`.
 * Never the test of trusted content: that is {@link occursIn}.
 */
export function occursAsWordIn(
  text: string,
  candidate: Pick<ArgumentCandidate, 'needle' | 'phone'> & Pick<Partial<ArgumentCandidate>, 'host' | 'domain'>,
): boolean {
  if (candidate.domain === true) return domainOccurs(text, candidate.needle, WHOLE_HOST_EDGES);
  if (candidate.phone !== null) return phoneOccursIn(text, candidate.phone, WORD_EDGES);
  return occurs(text, candidate.needle, untrustedEdgesOf(candidate));
}

/** The edges of a candidate in untrusted content: a whole host for a URL's host or an address's domain. */
function untrustedEdgesOf(candidate: Pick<Partial<ArgumentCandidate>, 'host'>): TokenEdges {
  return candidate.host === true ? WHOLE_HOST_EDGES : WORD_EDGES;
}

/**
 * The whole value-like tokens (`TOKEN_EDGES`) that hold each occurrence {@link occursAsWordIn} finds of a candidate
 * in canonical text: the value itself where it stands alone (`evil@x.com` in `send to evil@x.com.`), else the longer
 * token it is part of (`mary-jane@gmail.com` for `jane@gmail.com`, `-5000` for `5000`). The negative rule compares
 * these with trusted content: an occurrence inside a token that trusted content holds whole is not a value untrusted
 * content brought. `null` for a phone number or a value whose letters folding changed, which are not read so, and
 * for a registrable domain: trusted content naming any host of it clears it already.
 *
 * @example tokensAround('write to mary-jane@gmail.com.', candidateOf('jane@gmail.com')) // ['mary-jane@gmail.com']
 */
export function tokensAround(
  text: string,
  candidate: Pick<ArgumentCandidate, 'needle' | 'phone' | 'literal'> &
    Pick<Partial<ArgumentCandidate>, 'host' | 'domain'>,
): readonly string[] | null {
  if (candidate.phone !== null || candidate.literal !== undefined || candidate.domain === true) return null;
  const { needle } = candidate;
  const tokens: string[] = [];
  for (const start of starts(text, needle, untrustedEdgesOf(candidate))) {
    let from = start;
    let to = start + needle.length;
    while (TOKEN_EDGES.continuesBefore(text, from)) from--;
    while (TOKEN_EDGES.continuesAfter(text, to)) to++;
    tokens.push(text.slice(from, to));
  }
  return tokens;
}

/** Where `needle` starts in `text` with nothing that continues it on either side (`edges`). */
function* starts(text: string, needle: string, edges: TokenEdges): Generator<number> {
  if (needle === '') return;
  // Searched from its first character that is not a lower-case ASCII letter (a digit, `@`, `.`, `-`): such
  // characters are rare in prose, so the scan skips ahead quickly; each hit is then checked as the whole needle.
  const offset = Math.max(0, needle.search(/[^a-z]/u));
  const anchor = needle.slice(offset);
  for (let at = text.indexOf(anchor, offset); at !== -1; at = text.indexOf(anchor, at + 1)) {
    const start = at - offset;
    if (
      text.startsWith(needle, start) &&
      !edges.continuesBefore(text, start) &&
      !edges.continuesAfter(text, start + needle.length)
    )
      yield start;
  }
}

function occurs(text: string, needle: string, edges: TokenEdges): boolean {
  return starts(text, needle, edges).next().done !== true;
}

/** The longest host name DNS allows: how far {@link domainOccurs} reads back for the host a domain ends. */
const MAX_HOST_LENGTH = 253;
/** A character of a host name in canonical form: a label's letter, mark, digit, `-` or `_`, or the dot between two. */
const HOST_CHARACTER = /[\p{L}\p{M}\p{N}._-]/u;

/**
 * Whether the registrable domain `domain` (`registrableDomain`) ends a host in canonical text: stands whole by `edges`
 * (`evil.example`, `billing@evil.example`), or ends a longer host glued to it by a dot whose own registrable domain it
 * is (`pay.evil.example`; not `x.s3.amazonaws.com`, a private suffix's site, for `amazonaws.com`). The host is read
 * back at most {@link MAX_HOST_LENGTH} characters, so each occurrence costs a bounded look-up, and no further than an
 * empty label: after `urgent...claims.evil.example` (an ellipsis, `…` too in canonical form, glued before it) the host
 * is `claims.evil.example` (ADR 0202).
 */
function domainOccurs(text: string, domain: string, edges: TokenEdges): boolean {
  const offset = Math.max(0, domain.search(/[^a-z]/u));
  const anchor = domain.slice(offset);
  for (let at = text.indexOf(anchor, offset); at !== -1; at = text.indexOf(anchor, at + 1)) {
    const start = at - offset;
    if (!text.startsWith(domain, start) || edges.continuesAfter(text, start + domain.length)) continue;
    if (text[start - 1] === '.' && isWord(text, start - 2)) {
      let from = start - 1;
      // Read back no further than an empty label (`..`): a host has none, and the word before an ellipsis glued to
      // the host (`urgent...claims.evil.example`) is not part of it.
      while (
        from > 0 &&
        start - from < MAX_HOST_LENGTH &&
        HOST_CHARACTER.test(text[from - 1]!) &&
        !(text[from - 1] === '.' && text[from] === '.')
      )
        from--;
      const host = text.slice(from, start + domain.length).replace(/^[._-]+/u, '');
      if (registrableDomain(host) === domain) return true;
    } else if (!edges.continuesBefore(text, start)) return true;
  }
  return false;
}
