import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { DataClass } from '../context-release/data-class.js';
import type { SourceKind } from '../context-release/source.js';
import type { Trust } from '../context-release/trust.js';
import type { ReleaseDisposition, ReleaseRecord } from '../evidence/release-record.js';
import { EngineTypedEntity } from './engine-typed-entity.js';
import { LinkPending } from './link-pending.js';

/** Length of a SHA-256 hex fingerprint. */
const FINGERPRINT = 64;
/** Longest release identifier (source name, connection, trust zone, correlation id). */
const IDENTIFIER = 128;

/**
 * One row of `verdict_release_records`: a {@link ReleaseRecord}, column for column, and nothing else.
 * The schema is owned by `verdictMigrations`; never `synchronize` it.
 */
@Entity('verdict_release_records')
@Index('idx_verdict_release_records_correlation', ['correlationId'])
@Index('idx_verdict_release_records_destination_time', ['destinationConnection', 'destinationTrustZone', 'recordedAt'])
@Index('idx_verdict_release_records_stream', ['stream'])
@LinkPending('idx_verdict_release_records_link_pending')
export class ReleaseRecordEntity extends EngineTypedEntity implements ReleaseRecord {
  @PrimaryColumn({ name: 'id', type: 'varchar', length: 64 })
  id!: string;

  @Column({ name: 'correlation_id', type: 'varchar', length: IDENTIFIER })
  correlationId!: string;

  @Column({ name: 'stream', type: 'varchar', length: 128, default: 'default' })
  stream!: string;

  @Column({ name: 'source_kind', type: 'varchar', length: 32 })
  sourceKind!: SourceKind;

  @Column({ name: 'source_name', type: 'varchar', length: IDENTIFIER })
  sourceName!: string;

  @Column({ name: 'destination_connection', type: 'varchar', length: IDENTIFIER })
  destinationConnection!: string;

  @Column({ name: 'destination_trust_zone', type: 'varchar', length: IDENTIFIER })
  destinationTrustZone!: string;

  @Column({ name: 'classification', type: 'varchar', length: 32 })
  classification!: DataClass;

  @Column({ name: 'trust', type: 'varchar', length: 32 })
  trust!: Trust;

  @Column({ name: 'disposition', type: 'varchar', length: 32 })
  disposition!: ReleaseDisposition;

  @Column({ name: 'reason', type: 'text' })
  reason!: string;

  @Column({ name: 'requested_paths_fingerprint', type: 'varchar', length: FINGERPRINT })
  requestedPathsFingerprint!: string;

  @Column({ name: 'released_paths_fingerprint', type: 'varchar', length: FINGERPRINT })
  releasedPathsFingerprint!: string;

  @Column({ name: 'transformed_paths_fingerprint', type: 'varchar', length: FINGERPRINT })
  transformedPathsFingerprint!: string;

  @Column({ name: 'transform_names_fingerprint', type: 'varchar', length: FINGERPRINT })
  transformNamesFingerprint!: string;

  @Column({ name: 'transformation_count', type: 'integer' })
  transformationCount!: number;

  @Column({ name: 'payload_fingerprint', type: 'varchar', length: FINGERPRINT })
  payloadFingerprint!: string;

  @Column({ name: 'recorded_at', type: Date })
  recordedAt!: Date;
}
