import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * One row of `verdict_provenance_contents`: an untrusted text of a parked call's window, by content fingerprint,
 * kept for the approver or reviewer who decides the call (ADR 0042). The schema is owned by `verdictMigrations`.
 */
@Entity('verdict_provenance_contents')
@Index('idx_verdict_provenance_contents_kept_at', ['keptAt'])
export class ProvenanceContentEntity {
  @PrimaryColumn({ name: 'fingerprint', type: 'varchar', length: 64 })
  fingerprint!: string;

  @Column({ name: 'text', type: 'text' })
  text!: string;

  @Column({ name: 'kept_at', type: Date })
  keptAt!: Date;
}
