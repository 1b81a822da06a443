import { Injectable } from '@nestjs/common';
import { type AuthorizedAction, Capability, atMostOnce } from '@verdict/nestjs';
import { DataSource } from 'typeorm';
import type { StorefrontContext } from '../authorization/storefront-actor.js';
import type { Order } from '../entities/order.entity.js';
import { SupportTicket } from '../entities/support-ticket.entity.js';
import { type OrderIdArguments, orderIdArguments } from '../orders/order-id.arguments.js';
import { type OrderSource, orderPrimaryKeyPolicy, resolveOrderInContextTenant } from './order-target.js';
import { StorefrontCapability } from './storefront-capability.js';

/**
 * `support.escalate`: opens one support ticket for an owned order. The logical operation is "this
 * customer escalates this order": a transport redelivering the tool call under a new id, or the model
 * asking twice, must not open a second ticket. Needs an execution-claim store in `VerdictModule.forRoot`.
 */
@Injectable()
export class SupportCapabilities implements OrderSource {
  constructor(readonly dataSource: DataSource) {}

  @Capability({
    name: StorefrontCapability.EscalateOrder,
    description: "Escalate one of the signed-in customer's orders to a human support agent",
    action: 'escalate',
    subject: 'Order',
    arguments: orderIdArguments,
    resolveTarget: resolveOrderInContextTenant,
    executionTarget: orderPrimaryKeyPolicy,
    mutates: true,
    atMostOnce: atMostOnce<OrderIdArguments, Order, StorefrontContext>({
      name: 'escalate-order',
      key: ({ context }, order) => ({ tenant: order.tenantId, customer: context.actor.customerId, order: order.id }),
    }),
  })
  async escalate(action: AuthorizedAction<OrderIdArguments, Order>): Promise<{ ticket: string; orderId: number }> {
    const { id, tenantId, customerId } = action.target;
    await this.dataSource
      .getRepository(SupportTicket)
      .insert({ id: action.executionIdentity, tenantId, orderId: id, customerId });
    return { ticket: action.executionIdentity, orderId: id };
  }
}
