import { Injectable } from '@nestjs/common';
import { type AuthorizedAction, Capability, requiresConfirmation } from '@verdict/nestjs';
import { DataSource } from 'typeorm';
import type { Order } from '../entities/order.entity.js';
import { type RefundArguments, refundArguments } from '../orders/refund.arguments.js';
import { type OrderSource, orderPrimaryKeyPolicy, resolveOrderInContextTenant } from './order-target.js';
import { StorefrontCapability } from './storefront-capability.js';

/** A refund the (synthetic) payment provider made. */
export interface Refund {
  readonly orderId: number;
  readonly amountCents: number;
}

/**
 * `orders.refund`: moves money, so it runs only after the customer approved this exact refund — this
 * order in this version, this amount, asked by them in this conversation — once, within ten minutes. Needs an approval receipt store in
 * `VerdictModule.forRoot`.
 */
@Injectable()
export class RefundCapabilities implements OrderSource {
  readonly refunds: Refund[] = [];

  constructor(readonly dataSource: DataSource) {}

  @Capability({
    name: StorefrontCapability.RefundOrder,
    description: "Refund part of one of the signed-in customer's orders, in cents",
    action: 'refund',
    subject: 'Order',
    arguments: refundArguments,
    resolveTarget: resolveOrderInContextTenant,
    executionTarget: orderPrimaryKeyPolicy,
    // `mutates` is left undeclared: a refund runs at most once per approval (its receipt is consumed once), but
    // an atMostOnce key without the receipt would refuse a second, approved refund of the same amount (ADR 0030).
    requiresConfirmation: requiresConfirmation<RefundArguments, Order>({
      // The resource only: Verdict binds who asked (actor, tenant, conversation) into every receipt itself.
      bind: (_envelope, order) => ({ order: order.id, version: order.version }),
      reason: 'Refunds move money and cannot be undone.',
      ttlSeconds: 600,
      describe: ({ arguments: args }, order) => `Refund ${args.amountCents} cents on order ${order.id}`,
      subject: (_envelope, order) => ({ customerId: order.customerId, tenantId: order.tenantId }),
    }),
  })
  refund(action: AuthorizedAction<RefundArguments, Order>): Refund {
    const refund = { orderId: action.target.id, amountCents: action.arguments.amountCents };
    this.refunds.push(refund);
    return refund;
  }
}
