import { fingerprint } from '../../fingerprints/fingerprint.js';

/**
 * The tenant's key in the taint ledger: `sha256(JCS(tenant))`, so a context without a tenant (`null`) has a key
 * of its own that no tenant name can take.
 *
 * @example taintTenantKey('acme')
 */
export function taintTenantKey(tenant: string | null): string {
  return fingerprint(tenant);
}
