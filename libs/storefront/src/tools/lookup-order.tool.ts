import { tool } from '@langchain/core/tools';
import type { DataSource } from 'typeorm';
import { Order } from '../entities/order.entity.js';
import { orderIdArguments } from '../orders/order-id.arguments.js';
import { orderView } from '../orders/order-view.js';
import { LOOKUP_ORDER_TOOL, ORDER_NOT_FOUND } from './order-tool-descriptions.js';

/**
 * The `lookup_order` definition tool: the model-facing name, description and zod schema that Verdict
 * binds to `orders.view` (`verdictTools.bound(createLookupOrderTool(dataSource), 'orders.view')`; a
 * bound tool never calls this handler).
 *
 * **Deliberately unsafe when invoked directly.** Its own handler is the naive implementation the lab
 * shows leaking: `findOneBy({ id })` with no owner and no tenant check, so any customer — or a
 * prompt-injected model — reads any order in any tenant. Never give the unbound tool to an agent
 * outside the lab's "naive" comparison; for a hand-written fix see {@link manuallySecuredLookupOrder}.
 */
export function createLookupOrderTool(dataSource: DataSource) {
  return tool(
    async ({ orderId }) => {
      const order = await dataSource.getRepository(Order).findOneBy({ id: orderId });
      return order === null ? ORDER_NOT_FOUND : JSON.stringify(orderView(order));
    },
    { ...LOOKUP_ORDER_TOOL, schema: orderIdArguments },
  );
}
