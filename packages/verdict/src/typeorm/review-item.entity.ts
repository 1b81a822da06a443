import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { JsonObject, JsonValue } from '../fingerprints/json-value.js';
import type { ReviewItemStatus } from '../review/review-item-status.js';
import type { ApproverProvenance } from '../provenance/approver-provenance.js';
import { EngineTypedEntity, LongText } from './engine-typed-entity.js';

/**
 * One row of `verdict_review_items`: a `ReviewItem`, column for column (`kind` holds `reviewed`:
 * `'review'` or `'enqueue'`). The schema is owned by `verdictMigrations`; never `synchronize` it. Rows are
 * never deleted: a deleted terminal row would let the same request be parked and approved anew.
 */
@Entity('verdict_review_items')
@Index('uq_verdict_review_items_key', ['capability', 'requestKey', 'bindingFingerprint'], { unique: true })
@Index('idx_verdict_review_items_queue', ['tenant', 'status', 'expiresAt'])
export class ReviewItemEntity extends EngineTypedEntity {
  /** `rvw_` + 256 random bits, base64url. */
  @PrimaryColumn({ name: 'id', type: 'varchar', length: 64 })
  id!: string;

  @Column({ name: 'capability', type: 'varchar', length: 255 })
  capability!: string;

  /** JSON text: the validated arguments. */
  @Column({ name: 'arguments', type: 'simple-json' })
  @LongText()
  arguments!: JsonValue;

  @Column({ name: 'request_key', type: 'varchar', length: 255 })
  requestKey!: string;

  @Column({ name: 'binding_fingerprint', type: 'varchar', length: 64 })
  bindingFingerprint!: string;

  @Column({ name: 'principal_fingerprint', type: 'varchar', length: 64 })
  principalFingerprint!: string;

  /** JSON text: `actorKey(actor)` of the requester. */
  @Column({ name: 'requester_key', type: 'simple-json' })
  @LongText()
  requesterKey!: JsonValue;

  /** `containedActorFingerprint` of the requester (the module's `actorKey`); `null` without containment, or for older rows. */
  @Column({ name: 'requester_actor_fingerprint', type: 'varchar', length: 64, nullable: true })
  requesterActorFingerprint!: string | null;

  @Column({ name: 'tenant', type: 'varchar', length: 255, nullable: true })
  tenant!: string | null;

  /** JSON text (a string or a number), `null` when the request had no conversation. */
  @Column({ name: 'conversation_id', type: 'simple-json', nullable: true })
  conversationId!: string | number | null;

  @Column({ name: 'kind', type: 'varchar', length: 16 })
  kind!: 'review' | 'enqueue';

  @Column({ name: 'status', type: 'varchar', length: 32 })
  status!: ReviewItemStatus;

  @Column({ name: 'reason', type: 'text' })
  reason!: string;

  @Column({ name: 'description', type: 'text', nullable: true })
  @LongText()
  description!: string | null;

  @Column({ name: 'subject', type: 'simple-json', nullable: true })
  @LongText()
  subject!: JsonObject | null;

  @Column({ name: 'expires_at', type: Date })
  expiresAt!: Date;

  @Column({ name: 'decided_by', type: 'varchar', length: 255, nullable: true })
  decidedBy!: string | null;

  @Column({ name: 'decided_at', type: Date, nullable: true })
  decidedAt!: Date | null;

  @Column({ name: 'settled_at', type: Date, nullable: true })
  settledAt!: Date | null;

  @Column({ name: 'created_at', type: Date })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: Date })
  updatedAt!: Date;

  /** JSON text: what the reviewer is shown of the proposal's provenance (trusted data only); `null` when not analysed. */
  @Column({ name: 'provenance', type: 'simple-json', nullable: true })
  @LongText()
  provenance!: ApproverProvenance | null;
}
