import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import { EngineTypedEntity, LongText } from './engine-typed-entity.js';

/**
 * One row of `verdict_provenance_contents`: an untrusted text of a parked call's window, by content fingerprint,
 * kept for the approver or reviewer who decides the call (ADR 0042). The schema is owned by `verdictMigrations`.
 */
@Entity('verdict_provenance_contents')
@Index('idx_verdict_provenance_contents_kept_at', ['keptAt'])
export class ProvenanceContentEntity extends EngineTypedEntity {
  @PrimaryColumn({ name: 'fingerprint', type: 'varchar', length: 64 })
  fingerprint!: string;

  @Column({ name: 'text', type: 'text' })
  @LongText()
  text!: string;

  @Column({ name: 'kept_at', type: Date })
  keptAt!: Date;
}
