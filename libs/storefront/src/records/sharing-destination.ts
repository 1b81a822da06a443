/** The hosts and mail domains inside each tenant's boundary; everything else is external. Synthetic names. */
const TENANT_DOMAINS: Readonly<Record<string, readonly string[]>> = {
  acme: ['files.acme.example', 'acme.example'],
  globex: ['files.globex.example', 'globex.example'],
};

/** One DNS label: letters, digits and inner hyphens, at most 63 characters. */
const DNS_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * `host` as DNS names it, or `null` when it is no DNS name: trimmed, lower-cased, and without the one trailing
 * dot of a root-qualified name (`files.acme.example.` is `files.acme.example` in DNS). An empty label (`a..b`,
 * two trailing dots), a label past 63 characters, a name past 253, a character outside `[a-z0-9-]` (IPv6
 * literals, anything the URL parser did not encode) and an all-digit last label (the URL parser's IPv4
 * addresses) are not DNS names (ADR 0188).
 */
export function canonicalHost(host: string): string | null {
  const lowered = host.trim().toLowerCase();
  const name = lowered.endsWith('.') ? lowered.slice(0, -1) : lowered;
  if (name.length === 0 || name.length > 253) return null;
  const labels = name.split('.');
  if (!labels.every((label) => DNS_LABEL.test(label))) return null;
  return /^[0-9]+$/.test(labels.at(-1)!) ? null : name;
}

/**
 * The trajectory destination of a host or an e-mail address for `tenant`: `internal:<host>` when the
 * host (or the address's domain), as DNS names it ({@link canonicalHost}), is one of the tenant's own, else
 * `external:<host>` — also when it is no DNS name. Decided by the server from its own table, never by the model.
 */
export function sharingDestination(tenant: string | null, hostOrAddress: string): string {
  const raw = hostOrAddress.includes('@') ? hostOrAddress.slice(hostOrAddress.lastIndexOf('@') + 1) : hostOrAddress;
  const host = canonicalHost(raw);
  if (host === null) return `external:${raw.trim().toLowerCase()}`;
  const internal = tenant !== null && (TENANT_DOMAINS[tenant] ?? []).includes(host);
  return `${internal ? 'internal' : 'external'}:${host}`;
}

/**
 * The trajectory resource of a link sent for `tenant`, from the host the WHATWG URL parser reads in it (case,
 * percent-escapes and IDNA already resolved), as DNS names it. It fails closed (ADR 0188):
 * - `link:internal:<host>`: one of the tenant's hosts or a name under one of its domains (`cdn.files.acme.example`
 *   is the tenant's too);
 * - `link:external:<host>`: a DNS name outside every domain of the tenant — the only links that may leave once
 *   the tenant's storage holds records;
 * - `link:unplaced:<host>`: a link that is no URL, or whose host is no DNS name (an IP address, no host at all as
 *   in `mailto:` and `data:`): the server cannot tell it does not point into the tenant's storage.
 */
export function sharedLinkResource(tenant: string | null, link: string): string {
  let hostname: string;
  try {
    hostname = new URL(link).hostname;
  } catch {
    return 'link:unplaced:';
  }
  const host = canonicalHost(hostname);
  if (host === null) return `link:unplaced:${hostname}`;
  const domains = tenant === null ? [] : (TENANT_DOMAINS[tenant] ?? []);
  const internal = domains.some((domain) => host === domain || host.endsWith(`.${domain}`));
  return `link:${internal ? 'internal' : 'external'}:${host}`;
}
