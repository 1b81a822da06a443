import type { DataSource } from 'typeorm';
import { Order } from '../entities/order.entity.js';

/**
 * The order with `id` in `tenant`, or `null` (also for a missing tenant). Tenant-scoped only: whether the
 * actor may see it is CASL's decision, not this query's.
 */
export async function findOrderInTenant(
  dataSource: DataSource,
  tenant: string | null,
  id: number,
): Promise<Order | null> {
  // Never let a missing tenant turn into "any tenant".
  if (typeof tenant !== 'string' || tenant === '') return null;
  return dataSource.getRepository(Order).findOneBy({ id, tenantId: tenant });
}
