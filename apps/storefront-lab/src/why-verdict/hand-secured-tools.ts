import { tool } from '@langchain/core/tools';
import {
  ORDER_NOT_FOUND,
  Order,
  OrderStatus,
  type Refund,
  type StorefrontActorProvider,
  isStorefrontActor,
  orderIdArguments,
} from '@verdict/storefront';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { z } from 'zod';
import { type Payout, payoutArguments, reviewsArguments } from '../provenance/payout.capabilities.js';
import { REFUND_TO_ACCOUNT_TOOL, VIEW_REVIEWS_TOOL } from '../provenance/review-agent.js';

/**
 * Tools a careful team secures by hand, each correct on its own terms, for the lab's "why Verdict, not a
 * scoped query" cases. They show what a scoped query alone cannot see: the check and the write are two
 * statements, and an approval the tool remembers is not an approval it consumes.
 */

/** The signed-in customer and tenant, or `null` (fail closed). */
async function signedIn(actorProvider: StorefrontActorProvider) {
  const context = await actorProvider();
  if (context === undefined || !isStorefrontActor(context.actor) || typeof context.tenant !== 'string') return null;
  return { customerId: context.actor.customerId, tenant: context.tenant };
}

/**
 * `cancel_order` secured by hand: a scoped query checks that the order is the customer's and placed, then
 * the order is cancelled by id. `afterCheck` is where a concurrent writer can land between the two.
 */
export function handSecuredCancelOrder(
  dataSource: DataSource,
  actorProvider: StorefrontActorProvider,
  afterCheck: () => Promise<void> = async () => {},
) {
  return tool(
    async ({ orderId }) => {
      const actor = await signedIn(actorProvider);
      if (actor === null) return ORDER_NOT_FOUND;
      const orders = dataSource.getRepository(Order);
      const owned = await orders.findOneBy({ id: orderId, customerId: actor.customerId, tenantId: actor.tenant });
      if (owned === null || owned.status !== OrderStatus.Placed) return ORDER_NOT_FOUND;
      await afterCheck();
      await orders.update({ id: orderId }, { status: OrderStatus.Cancelled });
      return JSON.stringify({ id: orderId, status: OrderStatus.Cancelled });
    },
    {
      name: 'cancel_order',
      description: "Cancel one of the signed-in customer's placed orders",
      schema: orderIdArguments,
    },
  );
}

/**
 * `refund_order` with a hand-rolled confirmation: the first call answers with a token for the customer to
 * confirm; a call carrying a token the tool issued for this order and amount refunds. The token is checked,
 * never consumed, so the same confirmed call replayed refunds again.
 */
export function handConfirmedRefund(actorProvider: StorefrontActorProvider, refunds: Refund[]) {
  const issued = new Map<string, string>();
  return tool(
    async ({ orderId, amountCents, confirmationToken }) => {
      const actor = await signedIn(actorProvider);
      if (actor === null) return ORDER_NOT_FOUND;
      const key = `${actor.tenant}:${actor.customerId}:${orderId}:${amountCents}`;
      if (confirmationToken === undefined || issued.get(key) !== confirmationToken) {
        const token = randomUUID();
        issued.set(key, token);
        return JSON.stringify({ status: 'needs_confirmation', confirmationToken: token });
      }
      refunds.push({ orderId, amountCents });
      return JSON.stringify({ status: 'refunded', orderId, amountCents });
    },
    {
      name: 'refund_order',
      description: "Refund part of one of the signed-in customer's orders, in cents",
      schema: z.object({
        orderId: z.number().int().positive(),
        amountCents: z.number().int().positive(),
        confirmationToken: z.string().optional(),
      }),
    },
  );
}

/**
 * `view_order_reviews` and `refund_to_account` with no check at all: whoever asks reads any order's reviews
 * and refunds any order to any account. The naive path the live lab compares with.
 */
export function naivePayoutTools(shop: { readonly payouts: Payout[]; readonly reviews: readonly string[] }) {
  const reviews = tool(
    async ({ orderId }) => {
      const reviewList = shop.reviews.map((text, index) => ({ rating: index === 0 ? 5 : 1, text }));
      return JSON.stringify({ orderId, product: 'Rain jacket', reviews: reviewList });
    },
    { ...VIEW_REVIEWS_TOOL, schema: reviewsArguments },
  );
  const refund = tool(
    async ({ orderId, amountCents, iban }) => {
      shop.payouts.push({ orderId, amountCents, iban });
      return JSON.stringify({ status: 'refunded', orderId, amountCents });
    },
    { ...REFUND_TO_ACCOUNT_TOOL, schema: payoutArguments },
  );
  return { reviews, refund };
}

/**
 * `view_order_reviews` and `refund_to_account` secured by hand: both check with a scoped query that the order
 * is the signed-in customer's before the naive handler runs. The customer does own it, so the refund is paid
 * to whichever account the call names — also one the model copied from a review anyone could write.
 */
export function handSecuredPayoutTools(
  dataSource: DataSource,
  actorProvider: StorefrontActorProvider,
  shop: { readonly payouts: Payout[]; readonly reviews: readonly string[] },
) {
  const naive = naivePayoutTools(shop);
  const owned = async (orderId: number) => {
    const actor = await signedIn(actorProvider);
    if (actor === null) return null;
    return dataSource
      .getRepository(Order)
      .findOneBy({ id: orderId, customerId: actor.customerId, tenantId: actor.tenant });
  };
  const reviews = tool(
    async (args) => ((await owned(args.orderId)) === null ? ORDER_NOT_FOUND : naive.reviews.invoke(args)),
    { ...VIEW_REVIEWS_TOOL, schema: reviewsArguments },
  );
  const refund = tool(
    async (args) => ((await owned(args.orderId)) === null ? ORDER_NOT_FOUND : naive.refund.invoke(args)),
    { ...REFUND_TO_ACCOUNT_TOOL, schema: payoutArguments },
  );
  return { reviews, refund };
}
