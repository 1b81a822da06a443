import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import type { CustomerRole } from './customer-role.js';
import { Tenant } from './tenant.entity.js';

/**
 * A customer of one tenant. Synthetic data only: `displayName` is a made-up label, never real PII.
 * Ids are assigned by the application (no sequence), so seeded ids are stable across engines.
 */
@Entity('storefront_customers')
@Index('idx_storefront_customers_tenant', ['tenantId'])
export class Customer {
  @PrimaryColumn({ name: 'id', type: 'integer' })
  id!: number;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId!: string;

  @Column({ name: 'display_name', type: 'varchar', length: 255 })
  displayName!: string;

  /** Opaque label; see {@link CustomerRole}. Default in the schema: none (always set explicitly). */
  @Column({ name: 'role', type: 'varchar', length: 16 })
  role!: CustomerRole;

  /** Not loaded unless asked for (`relations: { tenant: true }`). */
  @ManyToOne(() => Tenant, { nullable: false, onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'tenant_id', foreignKeyConstraintName: 'fk_storefront_customers_tenant' })
  tenant?: Tenant;
}
