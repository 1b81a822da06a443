/**
 * Thrown by the `orders.cancel` executor when the conditional update matched no row: the order changed
 * (status, owner or version) after Verdict authorized it. Nothing was cancelled; ask the customer to
 * look the order up again. An application fault, so Verdict rethrows it rather than recording a decision.
 */
export class OrderChangedError extends Error {
  readonly code = 'STOREFRONT_ORDER_CHANGED';

  constructor(readonly orderId: number) {
    super(
      `Order ${orderId} changed after it was authorized; nothing was cancelled. Look the order up again before retrying.`,
    );
    this.name = new.target.name;
  }
}
