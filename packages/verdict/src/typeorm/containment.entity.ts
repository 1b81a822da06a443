import { Column, Entity, PrimaryColumn } from 'typeorm';
import { EngineTypedEntity, LongText } from './engine-typed-entity.js';

/**
 * One row of `verdict_containments`: an engaged kill switch (docs/containment.md), keyed by scope and
 * subject (a capability name, or the fingerprint of an actor key or tenant id). Releasing deletes the
 * row; engagements and releases are kept in evidence. The schema is owned by `verdictMigrations`.
 */
@Entity('verdict_containments')
export class ContainmentEntity extends EngineTypedEntity {
  @PrimaryColumn({ name: 'scope', type: 'varchar', length: 16 })
  scope!: string;

  @PrimaryColumn({ name: 'subject', type: 'varchar', length: 255 })
  subject!: string;

  @Column({ name: 'reason', type: 'text' })
  @LongText()
  reason!: string;

  @Column({ name: 'engaged_by', type: 'varchar', length: 255 })
  engagedBy!: string;

  @Column({ name: 'operator_identity', type: 'varchar', length: 255, nullable: true })
  operatorIdentity!: string | null;

  @Column({ name: 'engaged_at', type: Date })
  engagedAt!: Date;
}
