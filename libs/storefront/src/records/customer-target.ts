import { ExecutionTargetPolicy, TargetNotResolvable, fromContext } from '@verdict/nestjs';
import type { DataSource } from 'typeorm';
import { isStorefrontActor } from '../authorization/storefront-actor.js';
import { Customer } from '../entities/customer.entity.js';

/** What the customer resolvers need from the declaring provider. */
export interface CustomerSource {
  readonly dataSource: DataSource;
}

async function findCustomer(dataSource: DataSource, tenant: string | null, id: number): Promise<Customer | null> {
  return tenant === null ? null : dataSource.getRepository(Customer).findOneBy({ id, tenantId: tenant });
}

/** The signed-in customer's own record in the context tenant: the target of the record capabilities. */
export const resolveSignedInCustomer = fromContext<Customer, CustomerSource>(async (context, { dataSource }) => {
  const { actor, tenant } = context;
  if (!isStorefrontActor(actor)) return TargetNotResolvable.throw('no storefront customer in the context');
  return (
    (await findCustomer(dataSource, tenant, actor.customerId)) ??
    TargetNotResolvable.throw('customer not found in the context tenant')
  );
});

/** Re-read by the customer's own id and tenant; identity `{ tenant, type: 'customer', id }`. */
export const customerPrimaryKeyPolicy = ExecutionTargetPolicy.refresh<Customer, CustomerSource>({
  name: 'customer-primary-key',
  identity: (customer) => ({ tenant: customer.tenantId, type: 'customer', id: customer.id }),
  refresh: async (customer, _context, { dataSource }) =>
    (await findCustomer(dataSource, customer.tenantId, customer.id)) ??
    TargetNotResolvable.throw('customer no longer exists'),
});
