import type { DataSource } from 'typeorm';
import { Customer } from '../entities/customer.entity.js';
import { Order } from '../entities/order.entity.js';
import { Tenant } from '../entities/tenant.entity.js';
import { storefrontSeedData } from './storefront-seed-data.js';

/**
 * Inserts the synthetic tenants, customers and orders of {@link storefrontSeedData} after
 * `storefrontMigrations` have run. Idempotent: rows whose primary key already exists are left exactly
 * as they are (`INSERT ... ON CONFLICT DO NOTHING` / `INSERT IGNORE` / `INSERT OR IGNORE`), so a second
 * call changes nothing — and in particular does not undo a cancellation. To reset the data, start from
 * an empty database. Runs in one transaction.
 *
 * @example
 * await dataSource.runMigrations();
 * await seedStorefront(dataSource);
 */
export async function seedStorefront(dataSource: DataSource): Promise<void> {
  const { tenants, customers, orders } = storefrontSeedData;
  await dataSource.transaction(async (manager) => {
    // Parents first: customers and orders reference tenants, orders reference customers.
    await manager
      .createQueryBuilder()
      .insert()
      .into(Tenant)
      .values(tenants.map((row) => ({ ...row })))
      .orIgnore()
      .execute();
    await manager
      .createQueryBuilder()
      .insert()
      .into(Customer)
      .values(customers.map((row) => ({ ...row })))
      .orIgnore()
      .execute();
    await manager
      .createQueryBuilder()
      .insert()
      .into(Order)
      .values(orders.map((row) => ({ ...row })))
      .orIgnore()
      .execute();
  });
}
