import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { Trust } from '../context-release/trust.js';
import type { ProvenanceRecord, ProvenanceRecordKind } from '../provenance/provenance-record.js';
import type { ProvenanceSourceKind } from '../provenance/provenance-source.js';
import { EngineTypedEntity } from './engine-typed-entity.js';

/** Length of a SHA-256 hex fingerprint. */
const FINGERPRINT = 64;
/** Longest source name, correlation id. */
const IDENTIFIER = 128;

/**
 * One row of `verdict_provenance_records`: a {@link ProvenanceRecord}, column for column — labels,
 * fingerprints and derivation edges, never content. The schema is owned by `verdictMigrations`.
 */
@Entity('verdict_provenance_records')
@Index('idx_verdict_provenance_records_content', ['contentFingerprint'])
@Index('idx_verdict_provenance_records_correlation', ['correlationId'])
export class ProvenanceRecordEntity extends EngineTypedEntity implements ProvenanceRecord {
  @PrimaryColumn({ name: 'id', type: 'varchar', length: 64 })
  id!: string;

  @Column({ name: 'kind', type: 'varchar', length: 32 })
  kind!: ProvenanceRecordKind;

  @Column({ name: 'content_fingerprint', type: 'varchar', length: FINGERPRINT })
  contentFingerprint!: string;

  @Column({ name: 'source_kind', type: 'varchar', length: 32 })
  sourceKind!: ProvenanceSourceKind;

  @Column({ name: 'source_name', type: 'varchar', length: IDENTIFIER })
  sourceName!: string;

  @Column({ name: 'trust', type: 'varchar', length: 32 })
  trust!: Trust;

  @Column({ name: 'parent_fingerprint', type: 'varchar', length: FINGERPRINT, nullable: true })
  parentFingerprint!: string | null;

  @Column({ name: 'correlation_id', type: 'varchar', length: IDENTIFIER, nullable: true })
  correlationId!: string | null;

  @Column({ name: 'capability', type: 'varchar', length: 255, nullable: true })
  capability!: string | null;

  @Column({ name: 'argument_path_fingerprint', type: 'varchar', length: FINGERPRINT, nullable: true })
  argumentPathFingerprint!: string | null;

  @Column({ name: 'recorded_at', type: Date })
  recordedAt!: Date;
}
