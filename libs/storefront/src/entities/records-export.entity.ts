import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/**
 * An archive `records.export` packed for one customer. The row is the trusted record of what the archive
 * holds: `holdsCustomerRecords` is set by the server when it packs the customer's records, never by the model,
 * so the trajectory gate can tell an archive of records from any other file in whatever conversation it is
 * uploaded. CASL detects instances as subject type `'RecordsExport'` (by class).
 */
@Entity('storefront_records_exports')
@Index('idx_storefront_records_exports_owner', ['tenantId', 'customerId'])
export class RecordsExport {
  @PrimaryGeneratedColumn({ name: 'id', type: 'integer' })
  id!: number;

  @Column({ name: 'tenant_id', type: 'varchar', length: 64 })
  tenantId!: string;

  @Column({ name: 'customer_id', type: 'integer' })
  customerId!: number;

  /** The archive's file name, e.g. `records-72-1.zip`. */
  @Column({ name: 'archive', type: 'varchar', length: 255 })
  archive!: string;

  @Column({ name: 'holds_customer_records', type: 'boolean' })
  holdsCustomerRecords!: boolean;
}
