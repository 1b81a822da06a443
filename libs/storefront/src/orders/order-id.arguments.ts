import { z } from 'zod';

/**
 * The only argument a model may pass to the order tools and capabilities. zod's default object
 * parsing strips unknown keys, so a model-supplied `customerId` or `tenant` never reaches the resolver:
 * who and where come from the server's action context.
 */
export const orderIdArguments = z.object({
  orderId: z.number().int().positive().describe('The numeric id of the order, as shown to the customer (e.g. 1002).'),
});

/** `{ orderId: number }`. */
export type OrderIdArguments = z.infer<typeof orderIdArguments>;
