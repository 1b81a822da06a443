import { z } from 'zod';

/** Arguments of `orders.refund`: the order and the amount in cents. */
export const refundArguments = z.object({
  orderId: z.number().int().positive(),
  amountCents: z.number().int().positive(),
});

export type RefundArguments = z.infer<typeof refundArguments>;
