import { tool } from '@langchain/core/tools';
import type { ActionContext } from '@verdict/nestjs';
import type { DataSource } from 'typeorm';
import { isStorefrontActor } from '../authorization/storefront-actor.js';
import { Order } from '../entities/order.entity.js';
import { orderIdArguments } from '../orders/order-id.arguments.js';
import { orderView } from '../orders/order-view.js';
import { LOOKUP_ORDER_TOOL, ORDER_NOT_FOUND } from './order-tool-descriptions.js';

/** Supplies the current request's action context (e.g. `() => contexts.require()`), never model output. */
export type StorefrontActorProvider = () => ActionContext | undefined | Promise<ActionContext | undefined>;

/**
 * A `lookup_order` tool secured by hand, for the lab's comparison with Verdict: the query itself is
 * scoped to the server's actor and tenant (`findOneBy({ id, customerId, tenantId })`), so another
 * customer's or tenant's order answers exactly like a missing one. No context, or a context that is
 * not a storefront actor with a tenant, answers "not found" too (fail closed).
 *
 * It is correct, but nothing records the decision or proves that every tool was written this way —
 * which is the gap Verdict closes.
 *
 * @example
 * const lookup = manuallySecuredLookupOrder(dataSource, () => contexts.current());
 */
export function manuallySecuredLookupOrder(dataSource: DataSource, actorProvider: StorefrontActorProvider) {
  return tool(
    async ({ orderId }) => {
      const context = await actorProvider();
      if (
        context === undefined ||
        !isStorefrontActor(context.actor) ||
        typeof context.tenant !== 'string' ||
        context.tenant === ''
      )
        return ORDER_NOT_FOUND;
      const order = await dataSource
        .getRepository(Order)
        .findOneBy({ id: orderId, customerId: context.actor.customerId, tenantId: context.tenant });
      return order === null ? ORDER_NOT_FOUND : JSON.stringify(orderView(order));
    },
    { ...LOOKUP_ORDER_TOOL, schema: orderIdArguments },
  );
}
