import { ExecutionTargetPolicy, TargetNotResolvable, fromProposal } from '@verdict/nestjs';
import type { DataSource } from 'typeorm';
import type { Order } from '../entities/order.entity.js';
import { findOrderInTenant } from '../orders/find-order-in-tenant.js';
import type { OrderIdArguments } from '../orders/order-id.arguments.js';

/** What the order resolvers need from the provider that declares the capabilities (Verdict hands it over as `host`). */
export interface OrderSource {
  readonly dataSource: DataSource;
}

/**
 * Proposal-stage target of the order capabilities: the order with the proposed `orderId` in the
 * context's tenant (never a tenant from the arguments). Missing → `TargetNotResolvable` (a deny).
 */
export const resolveOrderInContextTenant = fromProposal<OrderIdArguments, Order, OrderSource>(
  async ({ arguments: { orderId }, context }, { dataSource }) =>
    (await findOrderInTenant(dataSource, context.tenant, orderId)) ??
    TargetNotResolvable.throw('order not found in the context tenant'),
);

/**
 * Execution target of the order capabilities: re-read by the proposal target's own `id` and `tenantId`
 * (never from the arguments); identity `{ tenant, type: 'order', id }`.
 */
export const orderPrimaryKeyPolicy = ExecutionTargetPolicy.refresh<Order, OrderSource>({
  name: 'order-primary-key',
  identity: (order) => ({ tenant: order.tenantId, type: 'order', id: order.id }),
  refresh: async (order, _context, { dataSource }) =>
    (await findOrderInTenant(dataSource, order.tenantId, order.id)) ??
    TargetNotResolvable.throw('order no longer exists'),
});
