import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A store (tenant) of the synthetic storefront, e.g. `acme` or `globex`. Every customer and order
 * belongs to exactly one tenant. The schema is owned by `storefrontMigrations`; never `synchronize` it.
 */
@Entity('storefront_tenants')
export class Tenant {
  /** Short, stable slug: `'acme'`. */
  @PrimaryColumn({ name: 'id', type: 'varchar', length: 64 })
  id!: string;

  @Column({ name: 'name', type: 'varchar', length: 255 })
  name!: string;
}
