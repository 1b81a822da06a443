import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { EngineTypedEntity } from './engine-typed-entity.js';

/**
 * One row of `verdict_taint_entries`: a tainted value's fingerprint (`candidateFingerprint`) for one tenant
 * (`taintTenantKey`), until `expires_at` (the last recording's time plus the retention). The primary key (tenant_fingerprint, fingerprint) is the unique index
 * every lookup uses; `expires_at` is indexed for `prune`. No column can hold a value: only fingerprints. The
 * schema is owned by `verdictMigrations`; never `synchronize` it.
 *
 * @example
 * new DataSource({ type: 'better-sqlite3', database: 'app.sqlite', entities: verdictEntities, migrations: verdictMigrations });
 */
@Entity('verdict_taint_entries')
@Index('idx_verdict_taint_entries_expires_at', ['expiresAt'])
export class TaintEntryEntity extends EngineTypedEntity {
  @PrimaryColumn({
    name: 'tenant_fingerprint',
    type: 'varchar',
    length: 64,
    primaryKeyConstraintName: 'pk_verdict_taint_entries',
  })
  tenantFingerprint!: string;

  @PrimaryColumn({
    name: 'fingerprint',
    type: 'varchar',
    length: 64,
    primaryKeyConstraintName: 'pk_verdict_taint_entries',
  })
  fingerprint!: string;

  @Column({ name: 'expires_at', type: Date })
  expiresAt!: Date;
}
