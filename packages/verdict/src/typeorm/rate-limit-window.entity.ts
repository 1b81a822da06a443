import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { EngineTypedEntity } from './engine-typed-entity.js';

/**
 * One row of `verdict_rate_limit_windows`: the units consumed in one fixed window of one bucket. The
 * primary key (bucket_fingerprint, window_start) is the uniqueness the limit relies on; `expires_at` is
 * the window's end, for `prune`. The schema is owned by `verdictMigrations`; never `synchronize` it.
 *
 * @example
 * new DataSource({ type: 'better-sqlite3', database: 'app.sqlite', entities: verdictEntities, migrations: verdictMigrations });
 */
@Entity('verdict_rate_limit_windows')
@Index('idx_verdict_rate_limit_windows_expires_at', ['expiresAt'])
export class RateLimitWindowEntity extends EngineTypedEntity {
  @PrimaryColumn({ name: 'bucket_fingerprint', type: 'varchar', length: 64 })
  bucketFingerprint!: string;

  @PrimaryColumn({ name: 'window_start', type: Date })
  windowStart!: Date;

  @Column({ name: 'count', type: 'integer' })
  count!: number;

  @Column({ name: 'expires_at', type: Date })
  expiresAt!: Date;
}
