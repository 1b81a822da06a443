import { identityFingerprint } from '../fingerprints/identity-fingerprint.js';

/** The stream of evidence written outside any tenant (and of context releases). */
export const DEFAULT_EVIDENCE_STREAM = 'default';

/**
 * The chain a tenant's decision records join: `tenant:` + the SHA-256 of the tenant id (evidence never
 * holds the id itself), or {@link DEFAULT_EVIDENCE_STREAM} without a tenant. One chain per stream keeps
 * tenants from serializing on each other's head and lets a tenant's evidence be verified alone.
 *
 * @example
 * evidenceStreamOf('acme'); // 'tenant:5b8e…'
 */
export function evidenceStreamOf(tenant: string | null | undefined): string {
  return tenant === null || tenant === undefined ? DEFAULT_EVIDENCE_STREAM : `tenant:${identityFingerprint(tenant)}`;
}
