import type { DataSource } from 'typeorm';
import type {
  PendingReviewQuery,
  ReviewItemDecision,
  ReviewItemDraft,
  ReviewItemSettlement,
  ReviewItemStore,
  ReviewItemTransition,
} from '../review/review-item-store.interface.js';
import type { ReviewItem } from '../review/review-item.js';
import { decidedStatus, isReviewItemExpired, refusedDecision } from '../review/review-item-rules.js';
import { ReviewItemStatus } from '../review/review-item-status.js';
import { ReviewItemEntity } from './review-item.entity.js';
import { StoreConnection } from './store-connection.js';

const TABLE = 'verdict_review_items';
const COLUMNS =
  'id, capability, arguments, request_key, binding_fingerprint, principal_fingerprint, requester_key, tenant, conversation_id, kind, status, reason, description, subject, expires_at, decided_by, decided_at, settled_at, created_at, updated_at, provenance, requester_actor_fingerprint';
const INSERTED =
  'id, capability, arguments, request_key, binding_fingerprint, principal_fingerprint, requester_key, tenant, conversation_id, kind, status, reason, description, subject, expires_at, created_at, updated_at, provenance, requester_actor_fingerprint';
const { Pending, Approved } = ReviewItemStatus;

/**
 * Review items in `verdict_review_items`, shared by every process on the database. Each transition is one
 * conditional statement, and refusals are classified by the shared review-item rules, so outcomes are the
 * in-memory adapter's on every engine:
 * - park: `INSERT … ON CONFLICT (capability, request_key, binding_fingerprint) DO NOTHING RETURNING …`
 *   (PostgreSQL, SQLite) or `INSERT … ON DUPLICATE KEY UPDATE id = id` (MySQL/MariaDB); a kept row is read.
 * - decide: `UPDATE … WHERE id = ? AND status = 'pending' AND expires_at > now`, `RETURNING` where the engine
 *   has it; of racing decisions exactly one changes the row. No row changed → read by id and classified.
 * - settle: `UPDATE … WHERE id = ? AND status = 'approved'`.
 *
 * Writes never join an application transaction (see `TypeOrmExecutionClaimStore`); database failures reject
 * as TypeORM's `QueryFailedError`. The DataSource needs `verdictEntities` and `verdictMigrations`.
 *
 * @example
 * VerdictModule.forRoot({ review: { items: new TypeOrmReviewItemStore(dataSource), queue, rehydrate } });
 */
export class TypeOrmReviewItemStore implements ReviewItemStore {
  private readonly connection: StoreConnection;
  private readonly parkSql: string;
  private readonly decideSql: string;
  private readonly settleSql: string;
  private readonly byIdSql: string;
  private readonly byKeySql: string;

  constructor(private readonly dataSource: DataSource) {
    this.connection = new StoreConnection(dataSource, 'TypeOrmReviewItemStore');
    const p = (index: number) => this.connection.param(index);
    const mysql = this.connection.dialect === 'mysql';
    const returning = mysql ? '' : ` RETURNING ${COLUMNS}`;
    const values = Array.from({ length: 19 }, (_, index) => p(index + 1)).join(', ');
    this.parkSql =
      `INSERT INTO ${TABLE} (${INSERTED}) VALUES (${values}) ` +
      (mysql
        ? 'ON DUPLICATE KEY UPDATE id = id'
        : `ON CONFLICT (capability, request_key, binding_fingerprint) DO NOTHING${returning}`);
    this.decideSql =
      `UPDATE ${TABLE} SET status = ${p(1)}, decided_by = ${p(2)}, decided_at = ${p(3)}, updated_at = ${p(4)} ` +
      `WHERE id = ${p(5)} AND status = '${Pending}' AND expires_at > ${p(6)}${returning}`;
    this.settleSql =
      `UPDATE ${TABLE} SET status = ${p(1)}, settled_at = ${p(2)}, updated_at = ${p(3)} ` +
      `WHERE id = ${p(4)} AND status = '${Approved}'`;
    this.byIdSql = `SELECT ${COLUMNS} FROM ${TABLE} WHERE id = ${p(1)}`;
    this.byKeySql = `SELECT ${COLUMNS} FROM ${TABLE} WHERE capability = ${p(1)} AND request_key = ${p(2)} AND binding_fingerprint = ${p(3)}`;
  }

  async park({ now, ...draft }: ReviewItemDraft, approved = false): Promise<ReviewItem> {
    const at = this.connection.instant(now);
    const { rows } = await this.connection.write('Review item park', this.parkSql, [
      ...[draft.id, draft.capability, JSON.stringify(draft.arguments), draft.requestKey, draft.bindingFingerprint],
      ...[draft.principalFingerprint, JSON.stringify(draft.requesterKey), draft.tenant],
      draft.conversationId === null ? null : JSON.stringify(draft.conversationId),
      ...[draft.reviewed ? 'review' : 'enqueue', approved ? Approved : Pending, draft.reason, draft.description],
      draft.subject === null ? null : JSON.stringify(draft.subject),
      ...[this.connection.instant(draft.expiresAt), at, at],
      draft.provenance == null ? null : JSON.stringify(draft.provenance),
      draft.requesterActorFingerprint ?? null,
    ]);
    if (rows[0] !== undefined) return this.hydrate(rows[0]);
    const kept = (await this.read(this.byKeySql, [draft.capability, draft.requestKey, draft.bindingFingerprint]))[0];
    if (kept === undefined)
      throw new Error(
        'Review item park matched no item of its key: the candidate id is already taken. Use a fresh random id.',
      );
    return kept;
  }

  async find(id: string): Promise<ReviewItem | null> {
    return (await this.read(this.byIdSql, [id]))[0] ?? null;
  }

  async pending({ tenant, capability, now }: PendingReviewQuery): Promise<ReviewItem[]> {
    const p = (index: number) => this.connection.param(index);
    const parameters: unknown[] = [Pending, this.connection.instant(now)];
    let sql = `SELECT ${COLUMNS} FROM ${TABLE} WHERE status = ${p(1)} AND expires_at > ${p(2)}`;
    if (tenant === null) sql += ' AND tenant IS NULL';
    else sql += ` AND tenant = ${p(parameters.push(tenant))}`;
    if (capability !== undefined) sql += ` AND capability = ${p(parameters.push(capability))}`;
    const items = await this.read(`${sql} ORDER BY created_at, id`, parameters);
    return items.filter((item) => !isReviewItemExpired(item, now));
  }

  async decide(decision: ReviewItemDecision): Promise<ReviewItemTransition> {
    const status = decidedStatus(decision.verdict);
    const at = this.connection.instant(decision.now);
    const { rows, affected } = await this.connection.write('Review item decision', this.decideSql, [
      ...[status, decision.by, at, at, decision.id, at],
    ]);
    if (affected !== 1) return refusedDecision(await this.find(decision.id), decision);
    if (rows[0] !== undefined) return { outcome: status, item: this.hydrate(rows[0]) };
    // MySQL/MariaDB: read back; a worker may have settled it since, so give the row as this call left it.
    const item = (await this.find(decision.id))!;
    const decided = {
      status,
      decidedBy: decision.by,
      decidedAt: decision.now,
      settledAt: null,
      updatedAt: decision.now,
    };
    return { outcome: status, item: Object.freeze({ ...item, ...decided }) };
  }

  async settle({ id, outcome, now }: ReviewItemSettlement): Promise<boolean> {
    const at = this.connection.instant(now);
    const { affected } = await this.connection.write('Review item settlement', this.settleSql, [outcome, at, at, id]);
    return affected === 1;
  }

  private async read(sql: string, parameters: unknown[]): Promise<ReviewItem[]> {
    const rows: Array<Record<string, unknown>> = await this.dataSource.query(sql, parameters);
    return rows.map((row) => this.hydrate(row));
  }

  /** A raw row (selected or returned), converted column by column as TypeORM converts the rows it finds. */
  private hydrate(raw: Record<string, unknown>): ReviewItem {
    const { driver } = this.dataSource;
    const row = Object.fromEntries(
      this.dataSource
        .getMetadata(ReviewItemEntity)
        .columns.map((column) => [column.propertyName, driver.prepareHydratedValue(raw[column.databaseName], column)]),
    ) as unknown as ReviewItemEntity;
    const { kind, ...item } = row;
    return Object.freeze({ ...item, reviewed: kind === 'review' });
  }
}
