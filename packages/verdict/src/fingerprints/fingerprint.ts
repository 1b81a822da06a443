import { hash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';

/**
 * SHA-256 (hex) of a raw string: tool-call ids, receipt ids, claim ids, field paths, transform names.
 * A fingerprint of a guessable value is a pseudonym, not anonymization.
 */
export function fingerprintString(value: string): string {
  return hash('sha256', value, 'hex');
}

/** SHA-256 (hex) over the RFC 8785 canonical JSON of `value`. @throws NonCanonicalValueError */
export function fingerprint(value: unknown): string {
  return fingerprintString(canonicalJson(value));
}
