import { AbilityBuilder, type MongoAbility, createMongoAbility } from '@casl/ability';
import type { Customer } from '../entities/customer.entity.js';
import type { Order } from '../entities/order.entity.js';
import type { RecordsExport } from '../entities/records-export.entity.js';
import { OrderStatus } from '../entities/order-status.js';

/** What a storefront customer can be allowed to do to an order. */
export type StorefrontAction = 'view' | 'cancel' | 'track' | 'escalate' | 'refund' | 'approve' | 'export' | 'share';

/** `'Order'` for rules, or an {@link Order} entity instance (detected as `'Order'` by class name). */
export type StorefrontSubject = 'Order' | Order | 'Approval' | 'Customer' | Customer | 'RecordsExport' | RecordsExport;

/** A storefront customer's CASL ability. */
export type StorefrontAbility = MongoAbility<[StorefrontAction, StorefrontSubject]>;

/** The reason CASL reports (`ability.relevantRuleFor(...).reason`) when a non-placed order is cancelled. */
export const ONLY_PLACED_ORDERS_CAN_BE_CANCELLED = 'only placed orders can be cancelled';

/** An ability with no rules: denies everything. */
export function denyAllStorefrontAbility(): StorefrontAbility {
  return createMongoAbility<StorefrontAbility>();
}

/**
 * The storefront's CASL rules for `customer` acting in `tenant`. Deny by default; grants only:
 * - `view`, `cancel`, `track` (shipment), `escalate` (to support) and `refund` on Orders with
 *   `{ customerId: customer.id, tenantId: tenant }`;
 * - `approve` on Approvals (pending confirmations) of their own orders in `tenant`;
 * - `view`, `export` and `share` of their own Customer record in `tenant`, and `share` of their own
 *   RecordsExport archives (the records capabilities);
 * - except `cancel` of an order whose status is not `placed` (an inverted rule, reason
 *   {@link ONLY_PLACED_ORDERS_CAN_BE_CANCELLED}).
 *
 * A customer who does not belong to `tenant` gets nothing. `customer.role` is not consulted.
 *
 * @example
 * defineStorefrontAbility(customer72, 'acme').can('cancel', order1002); // true
 */
export function defineStorefrontAbility(customer: Customer, tenant: string): StorefrontAbility {
  const { can, cannot, build } = new AbilityBuilder<StorefrontAbility>(createMongoAbility);
  if (customer.tenantId === tenant) {
    can(['view', 'cancel', 'track', 'escalate', 'refund'], 'Order', { customerId: customer.id, tenantId: tenant });
    can('approve', 'Approval', { customerId: customer.id, tenantId: tenant });
    can(['view', 'export', 'share'], 'Customer', { id: customer.id, tenantId: tenant });
    can('share', 'RecordsExport', { customerId: customer.id, tenantId: tenant });
    cannot('cancel', 'Order', { status: { $ne: OrderStatus.Placed } }).because(ONLY_PLACED_ORDERS_CAN_BE_CANCELLED);
  }
  return build();
}
