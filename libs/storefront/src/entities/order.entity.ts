import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn, VersionColumn } from 'typeorm';
import { Customer } from './customer.entity.js';
import type { OrderStatus } from './order-status.js';
import { Tenant } from './tenant.entity.js';

/**
 * An order placed by a customer of one tenant. CASL detects instances of this class as subject type
 * `'Order'` (by constructor name), which is what the storefront rules and capabilities name.
 *
 * `version` starts at 1 and grows by one on every change made through TypeORM (`save`, or an update
 * query builder on this entity), so an executor can update conditionally on the version it authorized.
 */
@Entity('storefront_orders')
@Index('idx_storefront_orders_tenant_customer', ['tenantId', 'customerId'])
@Index('idx_storefront_orders_customer', ['customerId'])
export class Order {
  @PrimaryColumn({ name: 'id', type: 'integer' })
  id!: number;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId!: string;

  @Column({ name: 'customer_id', type: 'integer' })
  customerId!: number;

  @Column({ name: 'status', type: 'varchar', length: 16 })
  status!: OrderStatus;

  /** Total in cents (integer), never a float. */
  @Column({ name: 'total', type: 'integer' })
  total!: number;

  @VersionColumn({ name: 'version', type: 'integer' })
  version!: number;

  /** Free text; treat it as untrusted content when it reaches a model. */
  @Column({ name: 'description', type: 'text' })
  description!: string;

  /** Not loaded unless asked for. */
  @ManyToOne(() => Tenant, { nullable: false, onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'tenant_id', foreignKeyConstraintName: 'fk_storefront_orders_tenant' })
  tenant?: Tenant;

  /** Not loaded unless asked for. */
  @ManyToOne(() => Customer, { nullable: false, onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'customer_id', foreignKeyConstraintName: 'fk_storefront_orders_customer' })
  customer?: Customer;
}
