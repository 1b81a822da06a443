import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { ApprovalReceipt } from '../approvals/approval-receipt.js';
import type { JsonObject, JsonValue } from '../fingerprints/json-value.js';
import type { ReceiptStatus } from '../approvals/receipt-status.js';
import type { ApproverProvenance } from '../provenance/approver-provenance.js';
import { EngineTypedEntity, LongText } from './engine-typed-entity.js';

/**
 * One row of `verdict_approval_receipts`: an {@link ApprovalReceipt}, column for column. The unique key
 * (tool_call_id, capability, binding_fingerprint) is what issuing conflicts on; its leading columns also
 * serve the lookups by tool call. The schema is owned by `verdictMigrations`; never `synchronize` it.
 * Rows are never deleted: a deleted terminal row would let an old tool call become a new approval.
 *
 * @example
 * new DataSource({ type: 'postgres', url, entities: verdictEntities, migrations: verdictMigrations, migrationsRun: true });
 */
@Entity('verdict_approval_receipts')
@Index('uq_verdict_approval_receipts_key', ['toolCallId', 'capability', 'bindingFingerprint'], { unique: true })
@Index('idx_verdict_approval_receipts_principal', ['principalFingerprint', 'capability', 'expiresAt'])
@Index('idx_verdict_approval_receipts_expires_at', ['expiresAt'])
@Index('idx_verdict_approval_receipts_batch', ['batchId'])
export class ApprovalReceiptEntity extends EngineTypedEntity implements ApprovalReceipt {
  /** 256 random bits, base64url (43 characters). */
  @PrimaryColumn({ name: 'id', type: 'varchar', length: 64 })
  id!: string;

  @Column({ name: 'tool_call_id', type: 'varchar', length: 255 })
  toolCallId!: string;

  @Column({ name: 'capability', type: 'varchar', length: 255 })
  capability!: string;

  @Column({ name: 'binding_fingerprint', type: 'varchar', length: 64 })
  bindingFingerprint!: string;

  @Column({ name: 'status', type: 'varchar', length: 32 })
  status!: ReceiptStatus;

  @Column({ name: 'reason', type: 'text' })
  reason!: string;

  @Column({ name: 'description', type: 'text', nullable: true })
  @LongText()
  description!: string | null;

  /** JSON text: the application's trusted facts about the bound resource. */
  @Column({ name: 'subject', type: 'simple-json', nullable: true })
  @LongText()
  subject!: JsonObject | null;

  @Column({ name: 'expires_at', type: Date })
  expiresAt!: Date;

  @Column({ name: 'approved_by', type: 'varchar', length: 255, nullable: true })
  approvedBy!: string | null;

  @Column({ name: 'approved_at', type: Date, nullable: true })
  approvedAt!: Date | null;

  @Column({ name: 'rejected_by', type: 'varchar', length: 255, nullable: true })
  rejectedBy!: string | null;

  @Column({ name: 'rejected_at', type: Date, nullable: true })
  rejectedAt!: Date | null;

  @Column({ name: 'consumed_at', type: Date, nullable: true })
  consumedAt!: Date | null;

  @Column({ name: 'created_at', type: Date })
  createdAt!: Date;

  @Column({ name: 'updated_at', type: Date })
  updatedAt!: Date;

  /** `sha256(JCS({actor, tenant}))` of who asked, for the pending-receipt caps; `null` when issued without limits. */
  @Column({ name: 'principal_fingerprint', type: 'varchar', length: 64, nullable: true })
  principalFingerprint!: string | null;

  /** `sha256(JCS(conversationId ?? null))` of the conversation asked in; `null` when issued without limits or before it existed. */
  @Column({ name: 'conversation_fingerprint', type: 'varchar', length: 64, nullable: true })
  conversationFingerprint!: string | null;

  /** JSON text: what the approver is shown of the proposal's provenance (trusted data only); `null` when not analysed. */
  @Column({ name: 'provenance', type: 'simple-json', nullable: true })
  @LongText()
  provenance!: ApproverProvenance | null;

  /** The approval batch (a fingerprint of the model turn) the receipt was asked in; `null` when asked on its own. */
  @Column({ name: 'batch_id', type: 'varchar', length: 64, nullable: true })
  batchId!: string | null;

  /** JSON text: a batched proposal's validated arguments, for its approver; cleared when the batch is decided. */
  @Column({ name: 'arguments', type: 'simple-json', nullable: true })
  @LongText()
  arguments!: JsonValue | null;
}
