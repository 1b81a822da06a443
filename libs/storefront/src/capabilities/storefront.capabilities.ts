import { Injectable } from '@nestjs/common';
import { type AuthorizedAction, Capability, atMostOnce } from '@verdict/nestjs';
import { DataSource } from 'typeorm';
import { Order } from '../entities/order.entity.js';
import { OrderStatus } from '../entities/order-status.js';
import { OrderChangedError } from '../orders/order-changed.error.js';
import { type OrderIdArguments, orderIdArguments } from '../orders/order-id.arguments.js';
import { type OrderView, orderView } from '../orders/order-view.js';
import { type OrderSource, orderPrimaryKeyPolicy, resolveOrderInContextTenant } from './order-target.js';
import { StorefrontCapability } from './storefront-capability.js';

/**
 * The storefront's capabilities, discovered by Verdict at boot: `orders.view` and `orders.cancel`.
 * Both resolve the order by the proposed `orderId` within the context tenant, let CASL decide with
 * `StorefrontAbilityFactory`, and refresh by primary key (`order-primary-key`) before executing.
 *
 * The declared resolvers read the DataSource this provider was constructed with: Verdict passes the
 * provider to them as `host`.
 *
 * @example
 * \@Module({ imports: [TypeOrmModule.forRoot(options), VerdictModule.forRootAsync(...)], providers: [StorefrontCapabilities] })
 */
@Injectable()
export class StorefrontCapabilities implements OrderSource {
  constructor(readonly dataSource: DataSource) {}

  /** `orders.view`: returns `{ id, status, total, description }` of an order the actor may view. */
  @Capability({
    name: StorefrontCapability.ViewOrder,
    description: "View one of the signed-in customer's orders",
    action: 'view',
    subject: 'Order',
    arguments: orderIdArguments,
    resolveTarget: resolveOrderInContextTenant,
    executionTarget: orderPrimaryKeyPolicy,
    mutates: false,
  })
  view(action: AuthorizedAction<OrderIdArguments, Order>): OrderView {
    return orderView(action.target);
  }

  /**
   * `orders.cancel`: sets `status` to `cancelled` with one conditional update (same id, tenant, owner,
   * `placed` status and version as the authorized execution target) and returns `{ id, status }`.
   * @throws OrderChangedError when the order changed after authorization (nothing is cancelled).
   */
  @Capability({
    name: StorefrontCapability.CancelOrder,
    description: "Cancel one of the signed-in customer's placed orders",
    action: 'cancel',
    subject: 'Order',
    arguments: orderIdArguments,
    resolveTarget: resolveOrderInContextTenant,
    executionTarget: orderPrimaryKeyPolicy,
    mutates: true,
    // One cancel per order version: a redelivered tool call does not run the update again.
    atMostOnce: atMostOnce({
      name: 'cancel-order',
      key: (_envelope, order) => ({ tenant: order.tenantId, order: order.id, version: order.version }),
    }),
  })
  async cancel(
    action: AuthorizedAction<OrderIdArguments, Order>,
  ): Promise<{ id: number; status: typeof OrderStatus.Cancelled }> {
    const { id, tenantId, customerId, version } = action.target;
    const result = await this.dataSource
      .createQueryBuilder()
      .update(Order)
      .set({ status: OrderStatus.Cancelled })
      .where({ id, tenantId, customerId, status: OrderStatus.Placed, version })
      .execute();
    if (result.affected !== 1) throw new OrderChangedError(id);
    return { id, status: OrderStatus.Cancelled };
  }
}
