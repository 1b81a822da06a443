import { createHash, hash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';

/** Strings longer than this are hashed in slices of this length. */
const SLICE = 1 << 16;
const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/**
 * SHA-256 (hex) of a raw string: tool-call ids, receipt ids, claim ids, field paths, transform names.
 * A fingerprint of a guessable value is a pseudonym, not anonymization.
 *
 * @throws TypeError when `value` is not a string.
 */
export function fingerprintString(value: string): string {
  // A JavaScript caller's number (a tenant id, say) would otherwise hash as the empty string: every such value one.
  if (typeof value !== 'string') throw new TypeError(`A fingerprinted text must be a string, not ${typeof value}.`);
  if (value.length <= SLICE) return hash('sha256', value, 'hex');
  // A long string is hashed in slices, which the processor's caches hold, rather than encoded whole into one
  // buffer as long as the text: the digest is the same, and the cost per byte does not grow with size.
  const digest = createHash('sha256');
  for (let start = 0; start < value.length;) {
    let end = Math.min(start + SLICE, value.length);
    // Never between the halves of a surrogate pair: each half alone would be encoded as U+FFFD.
    if (end < value.length && isHighSurrogate(value.charCodeAt(end - 1))) end -= 1;
    digest.update(value.slice(start, end), 'utf8');
    start = end;
  }
  return digest.digest('hex');
}

/** SHA-256 (hex) over the RFC 8785 canonical JSON of `value`. @throws NonCanonicalValueError */
export function fingerprint(value: unknown): string {
  return fingerprintString(canonicalJson(value));
}
