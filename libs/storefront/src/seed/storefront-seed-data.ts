import { CustomerRole } from '../entities/customer-role.js';
import { OrderStatus } from '../entities/order-status.js';

/**
 * The synthetic rows {@link seedStorefront} inserts. Names are invented labels, not PII. Orders start at
 * `version` 1.
 *
 * | order | tenant | customer | status  |
 * |-------|--------|----------|---------|
 * | 1001  | acme   | 91       | placed  |
 * | 1002  | acme   | 72       | placed  |
 * | 1003  | globex | 73       | placed  |
 * | 1004  | acme   | 72       | shipped |
 */
export const storefrontSeedData = {
  tenants: [
    { id: 'acme', name: 'Acme Outfitters (synthetic)' },
    { id: 'globex', name: 'Globex Supplies (synthetic)' },
  ],
  customers: [
    { id: 72, tenantId: 'acme', displayName: 'Synthetic Customer 72', role: CustomerRole.Customer },
    { id: 91, tenantId: 'acme', displayName: 'Synthetic Customer 91', role: CustomerRole.Customer },
    { id: 73, tenantId: 'globex', displayName: 'Synthetic Customer 73', role: CustomerRole.Customer },
  ],
  orders: [
    {
      id: 1001,
      tenantId: 'acme',
      customerId: 91,
      status: OrderStatus.Placed,
      total: 4200,
      description: 'Two synthetic trail lanterns, gift wrapped',
    },
    {
      id: 1002,
      tenantId: 'acme',
      customerId: 72,
      status: OrderStatus.Placed,
      total: 1999,
      description: 'One synthetic rain jacket, size M',
    },
    {
      id: 1003,
      tenantId: 'globex',
      customerId: 73,
      status: OrderStatus.Placed,
      total: 12500,
      description: 'Synthetic office chair, graphite',
    },
    {
      id: 1004,
      tenantId: 'acme',
      customerId: 72,
      status: OrderStatus.Shipped,
      total: 899,
      description: 'Synthetic water bottle, 750 ml',
    },
  ],
} as const;
