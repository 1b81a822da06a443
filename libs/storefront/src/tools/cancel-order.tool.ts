import { tool } from '@langchain/core/tools';
import type { DataSource } from 'typeorm';
import { Order } from '../entities/order.entity.js';
import { OrderStatus } from '../entities/order-status.js';
import { orderIdArguments } from '../orders/order-id.arguments.js';
import { CANCEL_ORDER_TOOL, ORDER_NOT_FOUND } from './order-tool-descriptions.js';

/**
 * The `cancel_order` definition tool: the model-facing name, description and zod schema that Verdict
 * binds to `orders.cancel` (`verdictTools.bound(createCancelOrderTool(dataSource), 'orders.cancel')`; a
 * bound tool never calls this handler).
 *
 * **Deliberately unsafe when invoked directly.** Its own handler is the naive implementation the lab
 * shows: `findOneBy({ id })` with no owner, tenant or status check, then `save` — it cancels any order
 * in any tenant, shipped ones included. Never give the unbound tool to an agent outside the lab's
 * "naive" comparison.
 */
export function createCancelOrderTool(dataSource: DataSource) {
  return tool(
    async ({ orderId }) => {
      const orders = dataSource.getRepository(Order);
      const order = await orders.findOneBy({ id: orderId });
      if (order === null) return ORDER_NOT_FOUND;
      order.status = OrderStatus.Cancelled;
      await orders.save(order);
      return JSON.stringify({ id: order.id, status: order.status });
    },
    { ...CANCEL_ORDER_TOOL, schema: orderIdArguments },
  );
}
