import { fingerprint, fingerprintString } from '../../fingerprints/fingerprint.js';
import type { ArgumentCandidate } from '../argument-candidates.js';

/**
 * What the taint ledger keeps of an argument value: `sha256(candidate.needle)`, the canonical comparison
 * string's fingerprint, so that every spelling that compares equal has one entry. A pseudonym, not an
 * anonymization: a guessable value can be confirmed by hashing the guess.
 *
 * @example candidateFingerprint(argumentCandidates({ recipient: 'DE89 3704 0044 0532 0130 00' })[0])
 */
export function candidateFingerprint(candidate: Pick<ArgumentCandidate, 'needle'>): string {
  return fingerprintString(candidate.needle);
}

/**
 * The tenant's key in the taint ledger: `sha256(JCS(tenant))`, so a context without a tenant (`null`) has a key
 * of its own that no tenant name can take.
 *
 * @example taintTenantKey('acme')
 */
export function taintTenantKey(tenant: string | null): string {
  return fingerprint(tenant);
}
