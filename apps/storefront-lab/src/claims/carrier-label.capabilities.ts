import { Injectable } from '@nestjs/common';
import { type AuthorizedAction, Capability, atMostOnce } from '@verdict/nestjs';
import {
  type Order,
  type OrderIdArguments,
  type OrderSource,
  type StorefrontContext,
  orderIdArguments,
  orderPrimaryKeyPolicy,
  resolveOrderInContextTenant,
} from '@verdict/storefront';
import { DataSource } from 'typeorm';

export const SEND_LABEL = 'orders.send_label';

/** The (synthetic) carrier took the request and then timed out: nobody knows whether the label was booked. */
export class CarrierTimeout extends Error {
  constructor() {
    super('the carrier timed out after accepting the label request');
    this.name = 'CarrierTimeout';
  }
}

/**
 * `orders.send_label`, the claims lab's capability: books a shipping label at most once per order. The lab's
 * carrier times out on the first request for each order, after which nobody knows whether the label exists,
 * so Verdict leaves the claim `indeterminate` until an operator resolves it (`verdict claims resolve`).
 */
@Injectable()
export class CarrierLabelCapabilities implements OrderSource {
  readonly labels: number[] = [];
  private readonly timedOut = new Set<number>();

  constructor(readonly dataSource: DataSource) {}

  @Capability({
    name: SEND_LABEL,
    description: 'Book the shipping label of one of your orders with the carrier',
    action: 'track',
    subject: 'Order',
    arguments: orderIdArguments,
    resolveTarget: resolveOrderInContextTenant,
    executionTarget: orderPrimaryKeyPolicy,
    mutates: true,
    atMostOnce: atMostOnce<OrderIdArguments, Order, StorefrontContext>({
      name: 'send-label',
      key: (_envelope, order) => ({ tenant: order.tenantId, order: order.id }),
    }),
  })
  sendLabel(action: AuthorizedAction<OrderIdArguments, Order>): { label: number } {
    if (!this.timedOut.has(action.target.id)) {
      this.timedOut.add(action.target.id);
      throw new CarrierTimeout();
    }
    this.labels.push(action.target.id);
    return { label: action.target.id };
  }
}
