import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { EngineTypedEntity } from './engine-typed-entity.js';

/** Reads a 64-bit total (a string on PostgreSQL and MySQL) as a number; totals stay within safe integers. */
const bigintAsNumber = { to: (value: number) => value, from: (value: string | number) => Number(value) };

/**
 * One row of `verdict_budget_windows`: what one bucket of a spend budget has spent and holds reserved in one fixed
 * window. The primary key (bucket_fingerprint, window_start) is the uniqueness the limit relies on; `expires_at` is
 * the window's end, for `prune`. The schema is owned by `verdictMigrations`; never `synchronize` it.
 *
 * @example
 * new DataSource({ type: 'better-sqlite3', database: 'app.sqlite', entities: verdictEntities, migrations: verdictMigrations });
 */
@Entity('verdict_budget_windows')
@Index('idx_verdict_budget_windows_expires_at', ['expiresAt'])
export class BudgetWindowEntity extends EngineTypedEntity {
  @PrimaryColumn({ name: 'bucket_fingerprint', type: 'varchar', length: 64 })
  bucketFingerprint!: string;

  @PrimaryColumn({ name: 'window_start', type: Date })
  windowStart!: Date;

  @Column({ name: 'spent', type: 'bigint', transformer: bigintAsNumber })
  spent!: number;

  @Column({ name: 'reserved', type: 'bigint', transformer: bigintAsNumber })
  reserved!: number;

  @Column({ name: 'expires_at', type: Date })
  expiresAt!: Date;
}
