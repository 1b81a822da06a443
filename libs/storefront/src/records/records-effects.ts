import type { Effect } from '@verdict/nestjs';
import type { RecordsExport } from '../entities/records-export.entity.js';
import { sharedLinkResource, sharingDestination } from './sharing-destination.js';

const records = (tenant: string) => `customer-records:${tenant}`;

/** What an upload puts on a host, from the trusted export row: the tenant's customer records, or another archive. */
const archiveResource = (archive: Pick<RecordsExport, 'tenantId' | 'holdsCustomerRecords'>) =>
  archive.holdsCustomerRecords ? records(archive.tenantId) : `archive:${archive.tenantId}`;

/**
 * What each records capability does to the world, as effects of {@link customerRecordsExfiltration}: the
 * run-time gate (`forbidStates`) and the evaluation pack's recorded trajectories both use these.
 */
export const recordsEffects = {
  read: (tenant: string): Effect => ({ effect: 'read', resource: records(tenant) }),
  export: (tenant: string): Effect => ({ effect: 'export', resource: records(tenant) }),
  upload: (archive: Pick<RecordsExport, 'tenantId' | 'holdsCustomerRecords'>, host: string): Effect => ({
    effect: 'upload',
    resource: archiveResource(archive),
    destination: sharingDestination(archive.tenantId, host),
  }),
  /**
   * A message with `link` to `to`: the link's host, as DNS names it, says whether it points into the tenant's own
   * storage; a link the server cannot place outside the tenant counts as pointing in (`sharedLinkResource`).
   */
  send: (tenant: string, to: string, link: string): Effect => ({
    effect: 'send',
    resource: sharedLinkResource(tenant, link),
    destination: sharingDestination(tenant, to),
  }),
};
