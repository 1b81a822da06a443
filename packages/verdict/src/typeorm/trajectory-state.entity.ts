import { Column, Entity, PrimaryColumn } from 'typeorm';
import { EngineTypedEntity, LongText } from './engine-typed-entity.js';

/**
 * One row of `verdict_trajectory_states`: the folded state of one trajectory (a conversation under one
 * state model) as canonical JSON, and `version`, the number of admitted calls, which every advance
 * compares and increments. The schema is owned by `verdictMigrations`; never `synchronize` it.
 */
@Entity('verdict_trajectory_states')
export class TrajectoryStateEntity extends EngineTypedEntity {
  @PrimaryColumn({ name: 'trajectory_fingerprint', type: 'varchar', length: 64 })
  trajectoryFingerprint!: string;

  @Column({ name: 'state', type: 'text' })
  @LongText()
  state!: string;

  @Column({ name: 'version', type: 'integer' })
  version!: number;

  @Column({ name: 'updated_at', type: Date })
  updatedAt!: Date;
}
