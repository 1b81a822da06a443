import { Injectable } from '@nestjs/common';
import { type AuthorizedAction, Capability, fixedWindow } from '@verdict/nestjs';
import { DataSource } from 'typeorm';
import type { StorefrontContext } from '../authorization/storefront-actor.js';
import type { Order } from '../entities/order.entity.js';
import { OrderStatus } from '../entities/order-status.js';
import { type OrderIdArguments, orderIdArguments } from '../orders/order-id.arguments.js';
import { type OrderSource, orderPrimaryKeyPolicy, resolveOrderInContextTenant } from './order-target.js';
import { StorefrontCapability } from './storefront-capability.js';

/** Shipment refreshes a customer may request per order per hour. */
export const SHIPMENT_REFRESHES_PER_HOUR = 2;

/** What `shipments.refresh` returns (synthetic: derived from the order's status). */
export interface ShipmentView {
  readonly orderId: number;
  readonly shipment: 'awaiting_dispatch' | 'in_transit' | 'none';
}

/**
 * `shipments.refresh`: asks the (synthetic) carrier for an owned order's shipment. Each request costs
 * the carrier a call, so it is metered: {@link SHIPMENT_REFRESHES_PER_HOUR} per customer and order per
 * hour. Needs a rate-limit store in `VerdictModule.forRoot`.
 */
@Injectable()
export class ShipmentCapabilities implements OrderSource {
  readonly refreshes: ShipmentView[] = [];

  constructor(readonly dataSource: DataSource) {}

  @Capability({
    name: StorefrontCapability.RefreshShipment,
    description: "Refresh the shipment status of one of the signed-in customer's orders",
    action: 'track',
    subject: 'Order',
    arguments: orderIdArguments,
    resolveTarget: resolveOrderInContextTenant,
    executionTarget: orderPrimaryKeyPolicy,
    mutates: false, // reads the shipment status; the budget is a rate limit, not an effect
    rateLimit: fixedWindow<OrderIdArguments, Order, StorefrontContext>({
      name: 'shipment-refreshes-per-customer-order',
      limit: SHIPMENT_REFRESHES_PER_HOUR,
      windowSeconds: 3600,
      key: ({ context }, order) => ({ tenant: order.tenantId, customer: context.actor.customerId, order: order.id }),
      reason: 'shipment refresh budget for this order is exhausted',
    }),
  })
  refresh(action: AuthorizedAction<OrderIdArguments, Order>): ShipmentView {
    const { id, status } = action.target;
    const shipment =
      status === OrderStatus.Shipped ? 'in_transit' : status === OrderStatus.Placed ? 'awaiting_dispatch' : 'none';
    const view: ShipmentView = { orderId: id, shipment };
    this.refreshes.push(view);
    return view;
  }
}
