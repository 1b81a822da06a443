import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { ExecutionClaim } from '../execution-claims/execution-claim.js';
import type { ExecutionClaimStatus } from '../execution-claims/execution-claim-status.js';
import { EngineTypedEntity } from './engine-typed-entity.js';

/**
 * One row of `verdict_execution_claims`: an {@link ExecutionClaim}, column for column. The schema is
 * owned by `verdictMigrations`; never `synchronize` it. Rows are never pruned: they are the guarantee.
 *
 * @example
 * new DataSource({ type: 'postgres', url, entities: verdictEntities, migrations: verdictMigrations, migrationsRun: true });
 */
@Entity('verdict_execution_claims')
@Index('uq_verdict_execution_claims_binding', ['bindingFingerprint'], { unique: true })
@Index('idx_verdict_execution_claims_status_claimed_at', ['status', 'claimedAt'])
export class ExecutionClaimEntity extends EngineTypedEntity implements ExecutionClaim {
  /** 256 random bits, base64url (43 characters). */
  @PrimaryColumn({ name: 'id', type: 'varchar', length: 64 })
  id!: string;

  @Column({ name: 'capability', type: 'varchar', length: 255 })
  capability!: string;

  @Column({ name: 'policy', type: 'varchar', length: 255 })
  policy!: string;

  @Column({ name: 'binding_fingerprint', type: 'varchar', length: 64 })
  bindingFingerprint!: string;

  @Column({ name: 'status', type: 'varchar', length: 32 })
  status!: ExecutionClaimStatus;

  @Column({ name: 'attempt', type: 'integer' })
  attempt!: number;

  @Column({ name: 'claimed_at', type: Date })
  claimedAt!: Date;

  @Column({ name: 'updated_at', type: Date })
  updatedAt!: Date;

  @Column({ name: 'resolved_by', type: 'varchar', length: 255, nullable: true })
  resolvedBy!: string | null;

  @Column({ name: 'operator_identity', type: 'varchar', length: 255, nullable: true })
  operatorIdentity!: string | null;

  @Column({ name: 'resolution_reason', type: 'text', nullable: true })
  resolutionReason!: string | null;

  @Column({ name: 'resolved_at', type: Date, nullable: true })
  resolvedAt!: Date | null;
}
