import type { Order } from '../entities/order.entity.js';

/** What a customer is shown about an order: no owner, tenant or version. */
export interface OrderView {
  readonly id: number;
  readonly status: Order['status'];
  /** In cents. */
  readonly total: number;
  readonly description: string;
}

/** The plain JSON view of `order`: `{ id, status, total, description }`. */
export function orderView(order: Order): OrderView {
  return { id: order.id, status: order.status, total: order.total, description: order.description };
}
