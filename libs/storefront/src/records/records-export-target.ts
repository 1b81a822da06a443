import { ExecutionTargetPolicy, TargetNotResolvable, fromContext } from '@verdict/nestjs';
import { isStorefrontActor } from '../authorization/storefront-actor.js';
import { RecordsExport } from '../entities/records-export.entity.js';
import type { CustomerSource } from './customer-target.js';

/** The signed-in customer's latest export in the context tenant: the target of `files.upload`. */
export const resolveLatestExport = fromContext<RecordsExport, CustomerSource>(
  async ({ actor, tenant }, { dataSource }) => {
    if (!isStorefrontActor(actor) || tenant === null)
      return TargetNotResolvable.throw('no storefront customer in the context');
    const latest = await dataSource
      .getRepository(RecordsExport)
      .findOne({ where: { tenantId: tenant, customerId: actor.customerId }, order: { id: 'DESC' } });
    return latest ?? TargetNotResolvable.throw('the customer has no export to upload');
  },
);

/** Re-read by the export's own id and tenant; identity `{ tenant, type: 'records-export', id }`. */
export const exportPrimaryKeyPolicy = ExecutionTargetPolicy.refresh<RecordsExport, CustomerSource>({
  name: 'records-export-primary-key',
  identity: (archive) => ({ tenant: archive.tenantId, type: 'records-export', id: archive.id }),
  refresh: async (archive, _context, { dataSource }) =>
    (await dataSource.getRepository(RecordsExport).findOneBy({ id: archive.id, tenantId: archive.tenantId })) ??
    TargetNotResolvable.throw('the export is gone'),
});
