/** The hosts and mail domains inside each tenant's boundary; everything else is external. Synthetic names. */
const TENANT_DOMAINS: Readonly<Record<string, readonly string[]>> = {
  acme: ['files.acme.example', 'acme.example'],
  globex: ['files.globex.example', 'globex.example'],
};

/**
 * The trajectory destination of a host or an e-mail address for `tenant`: `internal:<host>` when the
 * host (or the address's domain) belongs to the tenant, else `external:<host>`. Decided by the server
 * from its own table, never by the model.
 */
export function sharingDestination(tenant: string | null, hostOrAddress: string): string {
  const host = (hostOrAddress.includes('@') ? hostOrAddress.slice(hostOrAddress.lastIndexOf('@') + 1) : hostOrAddress)
    .trim()
    .toLowerCase();
  const internal = tenant !== null && (TENANT_DOMAINS[tenant] ?? []).includes(host);
  return `${internal ? 'internal' : 'external'}:${host}`;
}
