import type { Effect } from '@verdict/nestjs';
import { sharingDestination } from './sharing-destination.js';

const records = (tenant: string) => `customer-records:${tenant}`;

/**
 * What each records capability does to the world, as effects of {@link customerRecordsExfiltration}: the
 * run-time gate (`forbidStates`) and the evaluation pack's recorded trajectories both use these.
 */
export const recordsEffects = {
  read: (tenant: string): Effect => ({ effect: 'read', resource: records(tenant) }),
  export: (tenant: string): Effect => ({ effect: 'export', resource: records(tenant) }),
  upload: (tenant: string, host: string): Effect => ({ effect: 'upload', resource: records(tenant), destination: sharingDestination(tenant, host) }),
  send: (tenant: string, to: string): Effect => ({ effect: 'send', destination: sharingDestination(tenant, to) }),
};
