import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { RecordedDisposition } from '../decisions/shadow-disposition.js';
import type { Stage } from '../decisions/stage.js';
import type { DecisionRecord } from '../evidence/decision-record.js';
import type { ToolKind } from '../evidence/tool-kind.js';
import { EngineTypedEntity } from './engine-typed-entity.js';
import { LinkPending } from './link-pending.js';

/** Length of a SHA-256 hex fingerprint. */
const FINGERPRINT = 64;

/**
 * One row of `verdict_decision_records`: a {@link DecisionRecord}, column for column, and nothing else.
 * The schema is owned by `verdictMigrations`; never `synchronize` it.
 *
 * Timestamps are declared as `Date` because that is the one column type every supported driver
 * converts as a UTC instant; the migration chooses the engine's millisecond type
 * (`timestamptz(3)` / `datetime(3)` / SQLite text), which the column takes when a DataSource builds its
 * metadata ({@link EngineTypedEntity}). `link_pending`, a seal's bookkeeping, is declared for TypeORM's
 * schema builder only ({@link LinkPending}): it is no property of the record.
 *
 * @example
 * new DataSource({ type: 'better-sqlite3', database: 'verdict.sqlite', entities: verdictEntities, migrations: verdictMigrations });
 */
@Entity('verdict_decision_records')
@Index('idx_verdict_decision_records_correlation', ['correlationId', 'sequence'])
@Index('idx_verdict_decision_records_capability_time', ['capability', 'recordedAt'])
@Index('idx_verdict_decision_records_disposition_time', ['disposition', 'recordedAt'])
@Index('idx_verdict_decision_records_stage_time', ['stage', 'recordedAt'])
@Index('idx_verdict_decision_records_actor_time', ['actorFingerprint', 'recordedAt'])
@Index('idx_verdict_decision_records_tool_call', ['toolCallFingerprint'])
@Index('idx_verdict_decision_records_time', ['recordedAt'])
@Index('idx_verdict_decision_records_stream', ['stream'])
@LinkPending('idx_verdict_decision_records_link_pending')
export class DecisionRecordEntity extends EngineTypedEntity implements DecisionRecord {
  @PrimaryColumn({ name: 'id', type: 'varchar', length: 64 })
  id!: string;

  @Column({ name: 'correlation_id', type: 'varchar', length: 64 })
  correlationId!: string;

  @Column({ name: 'sequence', type: 'integer' })
  sequence!: number;

  @Column({ name: 'stream', type: 'varchar', length: 128, default: 'default' })
  stream!: string;

  @Column({ name: 'capability', type: 'varchar', length: 255 })
  capability!: string;

  @Column({ name: 'tool_kind', type: 'varchar', length: 32 })
  toolKind!: ToolKind;

  @Column({ name: 'stage', type: 'varchar', length: 32 })
  stage!: Stage;

  @Column({ name: 'disposition', type: 'varchar', length: 32 })
  disposition!: RecordedDisposition;

  @Column({ name: 'reason', type: 'text' })
  reason!: string;

  @Column({ name: 'arguments_fingerprint', type: 'varchar', length: FINGERPRINT, nullable: true })
  argumentsFingerprint!: string | null;

  @Column({ name: 'tool_call_fingerprint', type: 'varchar', length: FINGERPRINT, nullable: true })
  toolCallFingerprint!: string | null;

  @Column({ name: 'actor_fingerprint', type: 'varchar', length: FINGERPRINT, nullable: true })
  actorFingerprint!: string | null;

  @Column({ name: 'target_policy', type: 'varchar', length: 64, nullable: true })
  targetPolicy!: string | null;

  @Column({ name: 'target_strategy', type: 'varchar', length: 64, nullable: true })
  targetStrategy!: string | null;

  @Column({ name: 'proposal_identity_fingerprint', type: 'varchar', length: FINGERPRINT, nullable: true })
  proposalIdentityFingerprint!: string | null;

  @Column({ name: 'execution_identity_fingerprint', type: 'varchar', length: FINGERPRINT, nullable: true })
  executionIdentityFingerprint!: string | null;

  @Column({ name: 'identity_match', type: Boolean, nullable: true })
  identityMatch!: boolean | null;

  @Column({ name: 'approval_phase', type: 'varchar', length: 32, nullable: true })
  approvalPhase!: string | null;

  @Column({ name: 'approval_outcome', type: 'varchar', length: 32, nullable: true })
  approvalOutcome!: string | null;

  @Column({ name: 'receipt_fingerprint', type: 'varchar', length: FINGERPRINT, nullable: true })
  receiptFingerprint!: string | null;

  @Column({ name: 'rate_limit_key_fingerprint', type: 'varchar', length: FINGERPRINT, nullable: true })
  rateLimitKeyFingerprint!: string | null;

  @Column({ name: 'rate_limit_limit', type: 'integer', nullable: true })
  rateLimitLimit!: number | null;

  @Column({ name: 'rate_limit_remaining', type: 'integer', nullable: true })
  rateLimitRemaining!: number | null;

  @Column({ name: 'rate_limit_reset_at', type: Date, nullable: true })
  rateLimitResetAt!: Date | null;

  @Column({ name: 'claim_fingerprint', type: 'varchar', length: FINGERPRINT, nullable: true })
  claimFingerprint!: string | null;

  @Column({ name: 'claim_status', type: 'varchar', length: 32, nullable: true })
  claimStatus!: string | null;

  @Column({ name: 'claim_attempt', type: 'integer', nullable: true })
  claimAttempt!: number | null;

  @Column({ name: 'recorded_at', type: Date })
  recordedAt!: Date;
}
