import { Injectable } from '@nestjs/common';
import { type AuthorizedAction, Capability, requiresReview } from '@verdict/nestjs';
import {
  type Order,
  type OrderSource,
  type Refund,
  orderPrimaryKeyPolicy,
  resolveOrderInContextTenant,
} from '@verdict/storefront';
import { DataSource } from 'typeorm';
import { z } from 'zod';

/** Refunds above this many cents are not the customer's to confirm: staff review them. */
export const REVIEW_THRESHOLD_CENTS = 10_000;

export const STAFF_REFUND = 'orders.staff_refund';

export const staffRefundArguments = z.object({
  orderId: z.number().int().positive(),
  amountCents: z
    .number()
    .int()
    .gt(REVIEW_THRESHOLD_CENTS, `refunds of ${REVIEW_THRESHOLD_CENTS} cents or less are confirmed by the customer`),
});
export type StaffRefundArguments = z.infer<typeof staffRefundArguments>;

/**
 * `orders.staff_refund`, the review lab's capability: a refund above {@link REVIEW_THRESHOLD_CENTS} is parked
 * for staff review, bound to this order in this version and these arguments; after a staff member of the
 * order's tenant approves, the in-process worker re-runs the pipeline as the customer and refunds at most once.
 */
@Injectable()
export class StaffRefundCapabilities implements OrderSource {
  readonly refunds: Refund[] = [];

  constructor(readonly dataSource: DataSource) {}

  @Capability({
    name: STAFF_REFUND,
    description: `Refund more than ${REVIEW_THRESHOLD_CENTS} cents of one of your orders (reviewed by staff)`,
    action: 'refund',
    subject: 'Order',
    arguments: staffRefundArguments,
    resolveTarget: resolveOrderInContextTenant,
    executionTarget: orderPrimaryKeyPolicy,
    requiresReview: requiresReview<StaffRefundArguments, Order>({
      bind: (_envelope, order) => ({ order: order.id, version: order.version }),
      reason: `Refunds above ${REVIEW_THRESHOLD_CENTS} cents are reviewed by staff.`,
      describe: ({ arguments: args }, order) => `Refund ${args.amountCents} cents on order ${order.id}`,
      reviewer: { subject: (_envelope, order) => ({ tenantId: order.tenantId }) },
    }),
  })
  refund(action: AuthorizedAction<StaffRefundArguments, Order>): Refund {
    const refund = { orderId: action.target.id, amountCents: action.arguments.amountCents };
    this.refunds.push(refund);
    return refund;
  }
}
