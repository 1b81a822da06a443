import { Injectable } from '@nestjs/common';
import { type AuthorizedAction, Capability, type ProvenancePolicy, Source, Trust } from '@verdict/nestjs';
import { type Order, type OrderSource, orderPrimaryKeyPolicy, resolveOrderInContextTenant } from '@verdict/storefront';
import { DataSource } from 'typeorm';
import { z } from 'zod';

/** The lab's capability names for the provenance labs. */
export const PayoutCapability = {
  ViewReviews: 'orders.reviews',
  RefundToAccount: 'orders.refund_to_account',
} as const;

/** A refund paid out to a bank account by the (synthetic) payment provider. */
export interface Payout {
  readonly orderId: number;
  readonly amountCents: number;
  readonly iban: string;
}

export const reviewsArguments = z.object({ orderId: z.number().int().positive() });
export const payoutArguments = z.object({
  orderId: z.number().int().positive(),
  amountCents: z.number().int().positive(),
  iban: z.string().min(4).max(64),
});
export type PayoutArguments = z.infer<typeof payoutArguments>;

/** The product's reviews are third-party text; the rest of the product is the storefront's own data. */
export const reviewsProvenance: ProvenancePolicy = {
  results: {
    trust: Trust.Trusted,
    format: 'json',
    paths: { 'reviews.*.text': { trust: Trust.Untrusted, source: Source.external('product-reviews') } },
  },
};

/** The recipient of a payout must come from trusted content (the customer's own message), never from a review. */
export const payoutProvenance: ProvenancePolicy = {
  untrustedContext: 'allow',
  arguments: { iban: 'trusted_only' },
};

/**
 * The provenance lab's storefront calls: `orders.reviews` (the product of one of the customer's orders, with
 * its reviews, which anyone can write) and `orders.refund_to_account` (a refund paid to a bank account). The
 * customer owns the order, so CASL permits both whatever account the model names: only provenance sees
 * where the account came from. The reviews shown are this lab session's (the lab edits the injected one).
 */
@Injectable()
export class PayoutCapabilities implements OrderSource {
  readonly payouts: Payout[] = [];
  reviews: readonly string[] = [];

  constructor(readonly dataSource: DataSource) {}

  @Capability({
    name: PayoutCapability.ViewReviews,
    description: 'Show the product of one of your orders with its customer reviews',
    action: 'view',
    subject: 'Order',
    arguments: reviewsArguments,
    resolveTarget: resolveOrderInContextTenant,
    executionTarget: orderPrimaryKeyPolicy,
    mutates: false,
    provenance: reviewsProvenance,
  })
  viewReviews(action: AuthorizedAction<z.infer<typeof reviewsArguments>, Order>) {
    return {
      orderId: action.target.id,
      product: 'Rain jacket',
      reviews: this.reviews.map((text, index) => ({ rating: index === 0 ? 5 : 1, text })),
    };
  }

  @Capability({
    name: PayoutCapability.RefundToAccount,
    description: 'Refund part of one of your orders to a bank account (IBAN), in cents',
    action: 'refund',
    subject: 'Order',
    arguments: payoutArguments,
    resolveTarget: resolveOrderInContextTenant,
    executionTarget: orderPrimaryKeyPolicy,
    provenance: payoutProvenance,
  })
  refundToAccount(action: AuthorizedAction<PayoutArguments, Order>): Payout {
    const payout = {
      orderId: action.target.id,
      amountCents: action.arguments.amountCents,
      iban: action.arguments.iban,
    };
    this.payouts.push(payout);
    return payout;
  }
}
