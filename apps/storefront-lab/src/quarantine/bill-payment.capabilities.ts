import { Injectable } from '@nestjs/common';
import {
  type AuthorizedAction,
  Capability,
  type ProvenancePolicy,
  Source,
  Trust,
  requiresConfirmation,
} from '@verdict/nestjs';
import { type Order, type OrderSource, orderPrimaryKeyPolicy, resolveOrderInContextTenant } from '@verdict/storefront';
import { DataSource } from 'typeorm';
import { z } from 'zod';

/** The lab's capability names for the "pay the bill in a file" lab. */
export const BillCapability = {
  ReadAttachment: 'orders.read_attachment',
  PayBill: 'orders.pay_bill',
} as const;

/** Where an order's uploaded files come from: whoever wrote the file, never the storefront. */
export const ORDER_ATTACHMENTS = Source.external('order-attachments');

/** A bill the (synthetic) payment provider paid for an order. */
export interface BillPayment {
  readonly orderId: number;
  readonly payee: string;
  readonly iban: string;
  readonly amountCents: number;
}

export const attachmentArguments = z.object({ orderId: z.number().int().positive() });
export const billPaymentArguments = z.object({
  orderId: z.number().int().positive(),
  payee: z.string().min(1).max(80),
  iban: z.string().min(4).max(64),
  amountCents: z.number().int().positive().max(1_000_000),
});
export type BillPaymentArguments = z.infer<typeof billPaymentArguments>;

/** The file's text is third-party content; its name and the order are the storefront's own. */
export const attachmentProvenance: ProvenancePolicy = {
  results: {
    trust: Trust.Trusted,
    format: 'json',
    paths: { text: { trust: Trust.Untrusted, source: ORDER_ATTACHMENTS } },
  },
};

/**
 * Where the money goes and how much: a value the customer did not write asks the customer first, with the text
 * it came from in front of them. The payee's name only labels the payment.
 */
export const billPaymentProvenance: ProvenancePolicy = {
  untrustedContext: 'allow',
  arguments: { iban: 'require_confirmation', amountCents: 'require_confirmation' },
};

/**
 * The quarantine lab's storefront calls: `orders.read_attachment` (the file the customer uploaded to one of
 * their orders: a repair shop's bill) and `orders.pay_bill` (the storefront pays a bill for the order, as it does
 * for warranty repairs). The customer owns the order, so CASL permits paying any account. Every payment asks the
 * customer first; provenance adds which argument came from where, and releases the text it came from to their
 * approval screen. The file is this lab session's (the lab edits it).
 */
@Injectable()
export class BillPaymentCapabilities implements OrderSource {
  readonly payments: BillPayment[] = [];
  file = '';

  constructor(readonly dataSource: DataSource) {}

  @Capability({
    name: BillCapability.ReadAttachment,
    description: 'Read the file the customer uploaded to one of their orders',
    action: 'view',
    subject: 'Order',
    arguments: attachmentArguments,
    resolveTarget: resolveOrderInContextTenant,
    executionTarget: orderPrimaryKeyPolicy,
    mutates: false,
    provenance: attachmentProvenance,
  })
  readAttachment(action: AuthorizedAction<z.infer<typeof attachmentArguments>, Order>) {
    return { orderId: action.target.id, name: 'repair-bill.txt', text: this.file };
  }

  @Capability({
    name: BillCapability.PayBill,
    description: 'Pay a bill for one of your orders (a warranty repair) to a bank account (IBAN), in cents',
    action: 'refund',
    subject: 'Order',
    arguments: billPaymentArguments,
    resolveTarget: resolveOrderInContextTenant,
    executionTarget: orderPrimaryKeyPolicy,
    provenance: billPaymentProvenance,
    // The customer's CASL rules let them approve confirmations of their own orders: the receipt names the order's
    // owner and tenant. Provenance adds why (the argument and its source) and what the customer is shown.
    requiresConfirmation: requiresConfirmation<BillPaymentArguments, Order>({
      bind: (_envelope, order) => ({ order: order.id, version: order.version }),
      reason: 'Paying a bill moves money and cannot be undone.',
      ttlSeconds: 600,
      describe: ({ arguments: args }, order) => `Pay ${args.amountCents} cents to ${args.payee} for order ${order.id}`,
      subject: (_envelope, order) => ({ customerId: order.customerId, tenantId: order.tenantId }),
    }),
  })
  payBill(action: AuthorizedAction<BillPaymentArguments, Order>): BillPayment {
    const { payee, iban, amountCents } = action.arguments;
    const payment = { orderId: action.target.id, payee, iban, amountCents };
    this.payments.push(payment);
    return payment;
  }
}
