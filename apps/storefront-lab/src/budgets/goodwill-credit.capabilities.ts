import { Injectable } from '@nestjs/common';
import { type AuthorizedAction, Capability, type SpendBudget } from '@verdict/nestjs';
import { type Order, type OrderSource, orderPrimaryKeyPolicy, resolveOrderInContextTenant } from '@verdict/storefront';
import { DataSource } from 'typeorm';
import { z } from 'zod';

/** The budget page's capability: store credit as goodwill, under a spend budget. */
export const GOODWILL_CREDIT = 'orders.goodwill_credit';

export const goodwillCreditArguments = z.object({
  orderId: z.number().int().positive(),
  amountCents: z.number().int().positive().max(100_000),
});
export type GoodwillCreditArguments = z.infer<typeof goodwillCreditArguments>;

/** €20.00 of goodwill credit per customer per day: the budget page shows it spent and refused. */
export const GOODWILL_BUDGET = {
  amountOf: ({ arguments: args }) => args.amountCents,
  limit: 2_000,
  per: 'actor',
  window: 86_400,
  reason: 'daily goodwill budget exhausted',
} as const satisfies SpendBudget<GoodwillCreditArguments>;

/** Store credit the (synthetic) storefront granted. */
export interface GoodwillCredit {
  readonly orderId: number;
  readonly amountCents: number;
}

/**
 * `orders.goodwill_credit`: the assistant may grant store credit on one of the customer's orders, without asking
 * anyone — within a spend budget of €20 per customer per day, held in the budget store across processes.
 */
@Injectable()
export class GoodwillCreditCapabilities implements OrderSource {
  readonly credits: GoodwillCredit[] = [];

  constructor(readonly dataSource: DataSource) {}

  @Capability({
    name: GOODWILL_CREDIT,
    description: 'Give store credit on one of your orders as goodwill, in cents',
    action: 'refund',
    subject: 'Order',
    arguments: goodwillCreditArguments,
    resolveTarget: resolveOrderInContextTenant,
    executionTarget: orderPrimaryKeyPolicy,
    budget: GOODWILL_BUDGET,
  })
  grant(action: AuthorizedAction<GoodwillCreditArguments, Order>): GoodwillCredit {
    const credit = { orderId: action.target.id, amountCents: action.arguments.amountCents };
    this.credits.push(credit);
    return credit;
  }
}
