/**
 * The life cycle of an {@link Order}: `placed` orders may be cancelled by their customer; `shipped` and
 * `cancelled` orders may not.
 */
export const OrderStatus = {
  Placed: 'placed',
  Shipped: 'shipped',
  Cancelled: 'cancelled',
} as const;

/** `'placed' | 'shipped' | 'cancelled'`. */
export type OrderStatus = (typeof OrderStatus)[keyof typeof OrderStatus];
