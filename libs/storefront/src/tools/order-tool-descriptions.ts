/** The model-facing name and description of the order lookup tool. */
export const LOOKUP_ORDER_TOOL = {
  name: 'lookup_order',
  description:
    "Look up one of the signed-in customer's orders by its numeric order id. Returns the order's id, status " +
    "('placed', 'shipped' or 'cancelled'), total in cents and description. The customer and the store are " +
    'known from the session: pass only orderId.',
} as const;

/** The model-facing name and description of the order cancellation tool. */
export const CANCEL_ORDER_TOOL = {
  name: 'cancel_order',
  description:
    "Cancel one of the signed-in customer's orders by its numeric order id. Only orders that are still " +
    "'placed' can be cancelled; shipped orders cannot. The customer and the store are known from the " +
    'session: pass only orderId. Returns the order id and its new status.',
} as const;

/** What every order tool answers when it will not show an order: the same text for "missing" and "not yours". */
export const ORDER_NOT_FOUND = 'Order not found.';

/** The model-facing name and description of the shipment refresh tool. */
export const REFRESH_SHIPMENT_TOOL = {
  name: 'refresh_shipment',
  description:
    "Ask the carrier for the current shipment status of one of the signed-in customer's orders, by numeric order id. " +
    'Each call costs a carrier request. Pass only orderId.',
} as const;

/** The model-facing name and description of the support escalation tool. */
export const ESCALATE_ORDER_TOOL = {
  name: 'escalate_order',
  description:
    "Escalate one of the signed-in customer's orders to a human support agent, by numeric order id. Opens one " +
    'support ticket. Pass only orderId.',
} as const;
