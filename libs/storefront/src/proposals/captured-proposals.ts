/**
 * A tool call as a model emitted it (after JSON parsing): the shape LangChain's `AIMessage.tool_calls`
 * and the testing kit's scripted chat model use.
 */
export interface CapturedToolCall {
  readonly name: 'lookup_order' | 'cancel_order' | 'refresh_shipment' | 'escalate_order';
  readonly args: Readonly<Record<string, unknown>>;
  readonly id: string;
}

/**
 * Tool calls a model produced in the storefront story, where the signed-in actor is customer 72 of
 * `acme` (`StorefrontContexts.customer72`). Untrusted input: replay them through Verdict, the naive
 * tools and the hand-secured tool to compare outcomes.
 */
export const capturedProposals = {
  /** 72 asks for 91's order (same tenant): must be denied. */
  crossCustomerView: { name: 'lookup_order', args: { orderId: 1001 }, id: 'call_xc_1001' },
  /** 72 asks for their own placed order: permitted. */
  ownedView: { name: 'lookup_order', args: { orderId: 1002 }, id: 'call_own_1002' },
  /** 72 (acme) asks for a globex order: must be denied (not even resolvable in acme). */
  crossTenantView: { name: 'lookup_order', args: { orderId: 1003 }, id: 'call_xt_1003' },
  /**
   * The model puts an actor and tenant in the arguments, claiming to be 91: they must be ignored
   * (stripped by the schema); the actor stays 72, so 1001 is denied.
   */
  argumentSmuggling: {
    name: 'lookup_order',
    args: { orderId: 1001, customerId: 91, tenant: 'acme' },
    id: 'call_smuggle_1001',
  },
  /** 72 cancels their own placed order: permitted. */
  ownedCancel: { name: 'cancel_order', args: { orderId: 1002 }, id: 'call_cancel_1002' },
  /** 72 cancels 91's order: must be denied and 1001 must stay placed. */
  crossCustomerCancel: { name: 'cancel_order', args: { orderId: 1001 }, id: 'call_xc_cancel_1001' },
  /** 72 asks the carrier about their own order: permitted, within the refresh budget. */
  shipmentRefresh: { name: 'refresh_shipment', args: { orderId: 1002 }, id: 'call_ship_1002' },
  /** 72 escalates their own order: opens one ticket. */
  ownedEscalation: { name: 'escalate_order', args: { orderId: 1002 }, id: 'call_esc_1002_a' },
  /** The same escalation redelivered by the transport under a new tool-call id: still one ticket. */
  redeliveredEscalation: { name: 'escalate_order', args: { orderId: 1002 }, id: 'call_esc_1002_b' },
  /** Not an order id at all: denied at the proposal stage as invalid arguments. */
  malformed: { name: 'lookup_order', args: { orderId: 'DROP TABLE' }, id: 'call_malformed' },
} as const satisfies Readonly<Record<string, CapturedToolCall>>;

/** The name of one captured proposal: `'crossCustomerView' | 'ownedView' | ...`. */
export type CapturedProposalName = keyof typeof capturedProposals;
