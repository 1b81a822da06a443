import type { DataSource, EntityMetadata } from 'typeorm';
import type {
  ApprovalReceiptStore,
  PendingReceiptLimits,
  ReceiptBatchDecision,
  ReceiptBatchItemDecision,
  ReceiptBatchTransition,
  ReceiptCheck,
  ReceiptDecision,
  ReceiptIssue,
  ReceiptKey,
  ReceiptPruneReport,
  ReceiptTransition,
} from '../approvals/approval-receipt-store.interface.js';
import type { ApprovalReceipt } from '../approvals/approval-receipt.js';
import {
  asksTombstone,
  checkReceipt,
  decidedInBatch,
  exceedsPendingLimits,
  isExpired,
  pendingLimitFingerprints,
  refusedBatchDecision,
  refusedTransition,
} from '../approvals/receipt-rules.js';
import { ReceiptStatus } from '../approvals/receipt-status.js';
import { receiptTombstone } from '../approvals/receipt-tombstone.js';
import { fingerprintString } from '../fingerprints/fingerprint.js';
import { batches } from '../shared/batches.js';
import { ApprovalReceiptEntity } from './approval-receipt.entity.js';
import { type LockedQuery, withNamedLock } from './named-lock.js';
import { StoreConnection, type TransactionSteps } from './store-connection.js';

const TABLE = 'verdict_approval_receipts';
const TOMBSTONES = 'verdict_approval_receipt_tombstones';
const COLUMNS =
  'id, tool_call_id, capability, binding_fingerprint, status, reason, description, subject, expires_at, approved_by, approved_at, rejected_by, rejected_at, consumed_at, created_at, updated_at, principal_fingerprint, conversation_fingerprint, provenance, batch_id, arguments';
const INSERTED =
  'id, tool_call_id, capability, binding_fingerprint, status, reason, description, subject, expires_at, created_at, updated_at, principal_fingerprint, conversation_fingerprint, provenance, batch_id, arguments';
const { Pending, Approved, Rejected, Superseded, Consumed } = ReceiptStatus;
/** Receipts per pruning `DELETE` (1 parameter each), far below every engine's parameter limit. */
const PRUNE_BATCH = 500;

/**
 * Approval receipts in `verdict_approval_receipts`, shared by every process and node on the database.
 * Each transition is one conditional statement; outcomes are classified by the shared receipt rules,
 * so they are the in-memory adapter's on every engine:
 * - issue: `INSERT … ON CONFLICT (tool_call_id, capability, binding_fingerprint) DO NOTHING RETURNING …`
 *   (PostgreSQL, SQLite; a kept row is then read) or `INSERT … ON DUPLICATE KEY UPDATE id = id` and a
 *   read of the row for the key (MySQL/MariaDB). An existing row is never replaced, whatever its state.
 * - issue with `limits` (ADR 0015): SQLite checks the caps and inserts in one `INSERT … SELECT … WHERE
 *   NOT EXISTS (<a pending receipt of the tool call in the conversation under one of the asker's
 *   fingerprints>) AND (SELECT COUNT(*) …) < maxPending ON CONFLICT … DO NOTHING RETURNING …` (a writing
 *   statement holds the database's write lock from its first read). PostgreSQL and MySQL/MariaDB take an
 *   exclusive lock named by the principal (`pg_advisory_xact_lock` in a READ COMMITTED transaction,
 *   `GET_LOCK`), and one named by the tool call when the asker has other fingerprints (ADR 0184: its issues
 *   under other actor keys take other principal locks; the locks are taken sorted), read the key's row and
 *   the pending receipts of the asker's fingerprints, apply the shared rule `exceedsPendingLimits`, and
 *   insert, all before the locks are released: issues of one principal queue, other principals' do not
 *   wait. No row written and none for the key → `null`.
 * - approve / reject: `UPDATE … WHERE id = ? AND tool_call_id = ? AND status = 'pending' AND expires_at
 *   > now`; no row changed → the receipt is read by id and the refusal classified.
 * - consume: `UPDATE … SET status = 'consumed' WHERE <key> AND status = 'approved' AND expires_at > now`,
 *   one round trip with `RETURNING` (PostgreSQL, SQLite); of racing callers exactly one changes the
 *   row. MySQL/MariaDB have no `UPDATE … RETURNING`, so the consumed row is read back (consumed is
 *   terminal: the read returns what the update wrote). No row changed → the tool call's receipts are
 *   read and the refusal classified.
 * Reads (`validate`, `find`, `pendingForToolCall`) change nothing.
 *
 * The DataSource needs `verdictEntities` and `verdictMigrations` (on MySQL/MariaDB `timezone: 'Z'`; the
 * migration gives the id columns a binary, no-pad collation so ids compare exactly, as elsewhere).
 * Writes never join an application transaction: see `TypeOrmExecutionClaimStore` for how, per engine
 * (on better-sqlite3 an open transaction fails with `OuterTransactionError` and changes nothing).
 * Database failures reject, as TypeORM's `QueryFailedError` on every engine: they are never reported as
 * an outcome.
 *
 * @example
 * VerdictModule.forRoot({ approvals: new TypeOrmApprovalReceiptStore(dataSource) });
 */
export class TypeOrmApprovalReceiptStore implements ApprovalReceiptStore {
  private readonly connection: StoreConnection;
  /** The entity's columns, looked up on the first row hydrated (the DataSource may not be initialized before). */
  private columns: EntityMetadata['columns'] | undefined;
  private readonly issueSql: string;
  private readonly approveSql: string;
  private readonly rejectSql: string;
  private readonly consumeSql: string;
  private readonly byIdSql: string;
  private readonly byKeySql: string;
  private readonly forCallSql: string;
  private readonly pendingSql: string;
  /** By the number of the asker's fingerprints, built on first use. */
  private readonly cappedIssueSql = new Map<number, string>();
  private readonly onKeyConflict: string;
  /** By the number of the asker's fingerprints, built on first use. */
  private readonly limitedPendingSql = new Map<number, string>();
  private readonly pendingOfAskers: (askers: number) => string;
  private readonly tombstoneSql: string;
  private readonly insertTombstoneSql: string;
  private readonly prunableSql: string;
  private readonly batchSql: string;
  private readonly lockBatchSql: string;
  private readonly batchDecisionSql: Record<ReceiptBatchItemDecision['verdict'], string>;

  constructor(private readonly dataSource: DataSource) {
    this.connection = new StoreConnection(dataSource, 'TypeOrmApprovalReceiptStore');
    const p = (index: number) => this.connection.param(index);
    const mysql = this.connection.dialect === 'mysql';
    const returning = mysql ? '' : ` RETURNING ${COLUMNS}`;
    const onKeyConflict = mysql
      ? 'ON DUPLICATE KEY UPDATE id = id'
      : `ON CONFLICT (tool_call_id, capability, binding_fingerprint) DO NOTHING${returning}`;
    this.issueSql =
      `INSERT INTO ${TABLE} (${INSERTED}) ` +
      `VALUES (${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, '${Pending}', ${p(5)}, ${p(6)}, ${p(7)}, ${p(8)}, ${p(9)}, ${p(10)}, ${p(11)}, ${p(12)}, ${p(13)}, ${p(14)}, ${p(15)}) ` +
      // Only the key's conflict is absorbed; any other failure (on MySQL a taken id, see `issue`) surfaces.
      onKeyConflict;
    this.onKeyConflict = onKeyConflict;
    // What `exceedsPendingLimits` reads under the locks: the pending receipts of the asker's fingerprints (the
    // principal's first), each an equality on the principal index.
    this.pendingOfAskers = (askers) =>
      `SELECT ${COLUMNS} FROM ${TABLE} WHERE status = '${Pending}' AND expires_at > ${p(1)} ` +
      `AND principal_fingerprint IN (${Array.from({ length: askers }, (_, index) => p(index + 2)).join(', ')})`;
    // A decision clears a batched receipt's arguments, as a batch decision does: its approver no longer needs them.
    const decide = (status: ReceiptStatus, by: string, at: string) =>
      `UPDATE ${TABLE} SET status = '${status}', ${by} = ${p(1)}, ${at} = ${p(2)}, arguments = NULL, updated_at = ${p(3)} ` +
      `WHERE id = ${p(4)} AND tool_call_id = ${p(5)} AND status = '${Pending}' AND expires_at > ${p(6)}${returning}`;
    this.approveSql = decide(Approved, 'approved_by', 'approved_at');
    this.rejectSql = decide(Rejected, 'rejected_by', 'rejected_at');
    this.consumeSql =
      `UPDATE ${TABLE} SET status = '${Consumed}', consumed_at = ${p(1)}, updated_at = ${p(2)} ` +
      `WHERE tool_call_id = ${p(3)} AND capability = ${p(4)} AND binding_fingerprint = ${p(5)} AND status = '${Approved}' AND expires_at > ${p(6)}${returning}`;
    const select = `SELECT ${COLUMNS} FROM ${TABLE} WHERE`;
    this.byIdSql = `${select} id = ${p(1)}`;
    this.byKeySql = `${select} tool_call_id = ${p(1)} AND capability = ${p(2)} AND binding_fingerprint = ${p(3)}`;
    this.forCallSql = `${select} tool_call_id = ${p(1)} AND capability = ${p(2)}`;
    this.pendingSql = `${select} tool_call_id = ${p(1)} AND status = '${Pending}' ORDER BY created_at, id`;
    this.tombstoneSql = `SELECT key_fingerprint FROM ${TOMBSTONES} WHERE key_fingerprint = ${p(1)}`;
    // Only the key's conflict does nothing (a receipt tombstoned already); any other failure rejects.
    this.insertTombstoneSql =
      `INSERT INTO ${TOMBSTONES} (key_fingerprint, consumed_at) VALUES (${p(1)}, ${p(2)}) ` +
      (mysql
        ? 'ON DUPLICATE KEY UPDATE key_fingerprint = key_fingerprint'
        : 'ON CONFLICT (key_fingerprint) DO NOTHING');
    const prunable =
      `(status IN ('${Consumed}', '${Rejected}', '${Superseded}') AND updated_at < ${p(1)}) OR ` +
      `(status IN ('${Pending}', '${Approved}') AND expires_at < ${p(2)})`;
    this.prunableSql = `${select} ${prunable}`;
    this.batchSql = `${select} batch_id = ${p(1)} ORDER BY created_at, id`;
    // SQLite locks the database with BEGIN IMMEDIATE instead: no row locks there.
    this.lockBatchSql = this.connection.dialect === 'sqlite' ? this.batchSql : `${this.batchSql} FOR UPDATE`;
    const inBatch = (status: ReceiptStatus, by: string, at: string) =>
      `UPDATE ${TABLE} SET status = '${status}', ${by} = ${p(1)}, ${at} = ${p(2)}, arguments = NULL, updated_at = ${p(3)} ` +
      `WHERE id = ${p(4)} AND tool_call_id = ${p(5)} AND status = '${Pending}'`;
    this.batchDecisionSql = {
      approve: inBatch(Approved, 'approved_by', 'approved_at'),
      reject: inBatch(Rejected, 'rejected_by', 'rejected_at'),
      supersede: inBatch(Superseded, 'rejected_by', 'rejected_at'),
    };
  }

  issue(request: ReceiptIssue & { readonly limits: PendingReceiptLimits }): Promise<ApprovalReceipt | null>;
  issue(request: ReceiptIssue): Promise<ApprovalReceipt>;
  async issue(request: ReceiptIssue): Promise<ApprovalReceipt | null> {
    const { limits } = request;
    if (limits === undefined) {
      const { rows } = await this.connection.write(
        'Approval receipt issue',
        this.issueSql,
        this.inserted(request, null),
      );
      return this.issued(request, rows, true);
    }
    const limited = { ...request, limits };
    if (this.connection.dialect === 'sqlite') {
      const now = this.connection.instant(request.now);
      const askers = pendingLimitFingerprints(limits);
      const { rows } = await this.connection.write('Approval receipt issue', this.sqliteCappedIssueSql(askers.length), [
        ...this.inserted(request, limits),
        ...[request.toolCallId, limits.conversationFingerprint ?? null, limits.conversationFingerprint ?? null],
        ...askers,
        now,
        ...[request.capability, limits.principalFingerprint, now, limits.maxPending],
      ]);
      return this.issued(request, rows, false);
    }
    // The principal's lock serializes its caps; an asker with fingerprints under other actor keys also takes the tool
    // call's, which its issues under those keys take too (ADR 0184). Locks are taken sorted, so no two issues deadlock.
    const locks = [limits.principalFingerprint];
    if (pendingLimitFingerprints(limits).length > 1)
      locks.push(fingerprintString(`verdict-approval-tool-call:${request.toolCallId}`));
    return withNamedLock(this.dataSource, this.connection.dialect, locks, (query) => this.issueLocked(limited, query));
  }

  /**
   * SQLite only (`?` placeholders): the caps and the insert in one writing statement, for an asker with `askers`
   * fingerprints. No conversation fingerprint in the limits (`NULL`) counts the asker's receipts of the tool call in
   * any conversation.
   */
  private sqliteCappedIssueSql(askers: number): string {
    let sql = this.cappedIssueSql.get(askers);
    if (sql === undefined) {
      const pending = `status = '${Pending}' AND expires_at > ?`;
      const anyOf = Array.from({ length: askers }, () => '?').join(', ');
      sql =
        `INSERT INTO ${TABLE} (${INSERTED}) SELECT ?, ?, ?, ?, '${Pending}', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? ` +
        `WHERE NOT EXISTS (SELECT 1 FROM ${TABLE} WHERE tool_call_id = ? AND (? IS NULL OR conversation_fingerprint = ?) ` +
        `AND principal_fingerprint IN (${anyOf}) AND ${pending}) ` +
        `AND (SELECT COUNT(*) FROM ${TABLE} WHERE capability = ? AND principal_fingerprint = ? AND ${pending}) < ? ` +
        this.onKeyConflict;
      this.cappedIssueSql.set(askers, sql);
    }
    return sql;
  }

  /** Under the principal's lock (and the tool call's): the key's row, else the caps, else the insert. */
  private async issueLocked(
    request: ReceiptIssue & { readonly limits: PendingReceiptLimits },
    query: LockedQuery,
  ): Promise<ApprovalReceipt | null> {
    const existing = (
      await query(this.byKeySql, [request.toolCallId, request.capability, request.bindingFingerprint])
    )[0];
    if (existing !== undefined) return this.hydrate(existing);
    const askers = pendingLimitFingerprints(request.limits);
    let sql = this.limitedPendingSql.get(askers.length);
    if (sql === undefined) this.limitedPendingSql.set(askers.length, (sql = this.pendingOfAskers(askers.length)));
    const pending = (await query(sql, [this.connection.instant(request.now), ...askers])).map((row) =>
      this.hydrate(row),
    );
    if (exceedsPendingLimits(pending, request)) return null;
    const rows = await query(this.issueSql, this.inserted(request, request.limits));
    if (rows[0] !== undefined) return this.hydrate(rows[0]);
    const written = (
      await query(this.byKeySql, [request.toolCallId, request.capability, request.bindingFingerprint])
    )[0];
    if (written === undefined || this.hydrate(written).id !== request.candidateId) throw takenCandidateId();
    return this.hydrate(written);
  }

  private inserted(request: ReceiptIssue, limits: PendingReceiptLimits | null): unknown[] {
    const { candidateId, toolCallId, capability, bindingFingerprint, reason, description, subject, expiresAt, now } =
      request;
    const at = this.connection.instant(now);
    return [
      ...[
        candidateId,
        toolCallId,
        capability,
        bindingFingerprint,
        reason,
        description,
        subject === null ? null : JSON.stringify(subject),
      ],
      ...[
        this.connection.instant(expiresAt),
        at,
        at,
        limits?.principalFingerprint ?? null,
        limits?.conversationFingerprint ?? null,
        request.provenance == null ? null : JSON.stringify(request.provenance),
        request.batch?.id ?? null,
        request.batch === undefined ? null : JSON.stringify(request.batch.arguments),
      ],
    ];
  }

  /** The returned row, or the kept row of the key; none at all is a cap's refusal (`mustExist` false) or a taken id. */
  private async issued(
    request: ReceiptKey,
    rows: Array<Record<string, unknown>>,
    mustExist: boolean,
  ): Promise<ApprovalReceipt | null> {
    if (rows[0] !== undefined) return this.hydrate(rows[0]);
    const existing = await this.byKey(request);
    // Without limits only reachable on MySQL/MariaDB when the candidate id equalled another receipt's id: nothing was written.
    if (existing === null && mustExist) throw takenCandidateId();
    return existing;
  }

  async pendingForToolCall(toolCallId: string, now: Date): Promise<ApprovalReceipt[]> {
    return (await this.read(this.pendingSql, [toolCallId])).filter((receipt) => !isExpired(receipt, now));
  }

  async find(receiptId: string): Promise<ApprovalReceipt | null> {
    return (await this.read(this.byIdSql, [receiptId]))[0] ?? null;
  }

  async approve(decision: ReceiptDecision): Promise<ReceiptTransition> {
    return this.decide('Approval receipt approval', this.approveSql, decision, {
      status: Approved,
      approvedBy: decision.by,
      approvedAt: decision.now,
      consumedAt: null,
    });
  }

  async reject(decision: ReceiptDecision): Promise<ReceiptTransition> {
    return this.decide('Approval receipt rejection', this.rejectSql, decision, {
      status: Rejected,
      rejectedBy: decision.by,
      rejectedAt: decision.now,
    });
  }

  async validate(key: ReceiptKey, now: Date): Promise<ReceiptCheck> {
    return this.check(key, now);
  }

  async inBatch(batchId: string): Promise<ApprovalReceipt[]> {
    return this.read(this.batchSql, [batchId]);
  }

  /**
   * One transaction (ADR 0102): the batch's rows are read under lock (`SELECT … FOR UPDATE` in a READ COMMITTED
   * transaction on PostgreSQL and MySQL/MariaDB; `BEGIN IMMEDIATE` with synchronous statements on better-sqlite3),
   * the shared rule `refusedBatchDecision` applied, and each item updated from `pending`; a refusal writes nothing,
   * and a failure rolls every item back.
   */
  decideBatch(decision: ReceiptBatchDecision): Promise<ReceiptBatchTransition> {
    return this.connection.transaction('Approval batch decision', this.batchDecision(decision));
  }

  private *batchDecision(decision: ReceiptBatchDecision): TransactionSteps<ReceiptBatchTransition> {
    const { batchId, items, by, now } = decision;
    const at = this.connection.instant(now);
    const ofBatch = (yield [this.lockBatchSql, [batchId]]).rows.map((row) => this.hydrate(row));
    const refused = refusedBatchDecision(ofBatch, decision);
    if (refused !== null) return refused;
    for (const item of items) {
      const { affected } = yield [this.batchDecisionSql[item.verdict], [by, at, at, item.receiptId, item.toolCallId]];
      // Read under lock as pending: anything else is a broken lock, and the whole batch rolls back.
      if (affected !== 1) throw new Error('Approval batch decision changed a receipt it had not locked as pending.');
    }
    const receipts = items.map((item) =>
      decidedInBatch(
        ofBatch.find((r) => r.id === item.receiptId)!,
        item.verdict,
        by,
        now,
      ),
    );
    return { outcome: 'decided', receipts };
  }

  /**
   * Deletes the receipts `isPrunable` names, after writing a tombstone for each consumed one (so a
   * prune cut short leaves a tombstone next to its receipt, never neither). Only the receipts read are
   * deleted, and only in the status they were read in: one consumed since the read (by a process whose
   * clock says it had not expired, or at a time before `before`) is left for the next prune, which
   * tombstones it first. So a consumed receipt never goes without its tombstone, whatever the clocks.
   */
  async prune(before: Date): Promise<ReceiptPruneReport> {
    const at = this.connection.instant(before);
    const doomed = await this.read(this.prunableSql, [at, at]);
    let tombstones = 0;
    for (const receipt of doomed.filter((r) => r.status === ReceiptStatus.Consumed)) {
      await this.connection.write('Approval receipt tombstone', this.insertTombstoneSql, [
        receiptTombstone(receipt),
        this.connection.instant(receipt.consumedAt ?? receipt.updatedAt),
      ]);
      tombstones++;
    }
    let pruned = 0;
    for (const status of new Set(doomed.map((r) => r.status))) {
      const ids = doomed.filter((r) => r.status === status).map((r) => r.id);
      for (const batch of batches(ids, PRUNE_BATCH)) {
        // One text per batch size: sent unnamed, so sizes do not pile up prepared statements (ADR 0120).
        const sql = this.pruneSql(batch.length);
        const { affected } = await this.connection.write('Approval receipt prune', sql, [status, ...batch], {
          named: false,
        });
        pruned += affected;
      }
    }
    return { pruned, tombstones };
  }

  /** Deletes the receipts of `count` ids that are still in one status. */
  private pruneSql(count: number): string {
    const p = (index: number) => this.connection.param(index);
    const ids = Array.from({ length: count }, (_, i) => p(i + 2)).join(', ');
    return `DELETE FROM ${TABLE} WHERE status = ${p(1)} AND id IN (${ids})`;
  }

  /** checkReceipt over the call's receipts; the tombstone is read only when none of them has the key's binding. */
  private async check(key: ReceiptKey, now: Date): Promise<ReceiptCheck> {
    const candidates = await this.forCall(key);
    const tombstoned =
      asksTombstone(candidates, key) &&
      (await this.connection.read(this.tombstoneSql, [receiptTombstone(key)])).length > 0;
    return checkReceipt(candidates, key, now, tombstoned);
  }

  async consume(key: ReceiptKey, now: Date): Promise<ReceiptCheck> {
    const at = this.connection.instant(now);
    const { rows, affected } = await this.connection.write('Approval receipt consumption', this.consumeSql, [
      ...[at, at, key.toolCallId, key.capability, key.bindingFingerprint, at],
    ]);
    if (affected === 1)
      return { outcome: 'approved', receipt: rows[0] !== undefined ? this.hydrate(rows[0]) : (await this.byKey(key))! };
    const check = await this.check(key, now);
    // This call consumed nothing: a receipt approved after its statement ran was not approved when it ran.
    return check.outcome === 'approved' ? { outcome: 'invalid_state', receipt: check.receipt } : check;
  }

  private async decide(
    gate: string,
    sql: string,
    { receiptId, toolCallId, by, now }: ReceiptDecision,
    change: Partial<ApprovalReceipt> & { status: 'approved' | 'rejected' },
  ): Promise<ReceiptTransition> {
    const at = this.connection.instant(now);
    const { rows, affected } = await this.connection.write(gate, sql, [by, at, at, receiptId, toolCallId, at]);
    if (affected === 1) {
      if (rows[0] !== undefined) return { outcome: change.status, receipt: this.hydrate(rows[0]) };
      // MySQL/MariaDB: read back; an approval may have been consumed since, so give the row as this call left it.
      const receipt = (await this.find(receiptId))!;
      return { outcome: change.status, receipt: Object.freeze({ ...receipt, ...change, updatedAt: now }) };
    }
    return refusedTransition(await this.find(receiptId), toolCallId, now);
  }

  private forCall({ toolCallId, capability }: ReceiptKey): Promise<ApprovalReceipt[]> {
    return this.read(this.forCallSql, [toolCallId, capability]);
  }

  private async byKey({ toolCallId, capability, bindingFingerprint }: ReceiptKey): Promise<ApprovalReceipt | null> {
    return (await this.read(this.byKeySql, [toolCallId, capability, bindingFingerprint]))[0] ?? null;
  }

  /** A plain read on a pooled connection (validation runs twice per confirmed call: no query builder on that path). */
  private async read(sql: string, parameters: unknown[]): Promise<ApprovalReceipt[]> {
    return (await this.connection.read(sql, parameters)).map((row) => this.hydrate(row));
  }

  /** A raw row (selected or returned), converted column by column as TypeORM converts the rows it finds. */
  private hydrate(raw: Record<string, unknown>): ApprovalReceipt {
    const { driver } = this.dataSource;
    this.columns ??= this.dataSource.getMetadata(ApprovalReceiptEntity).columns;
    const row: Record<string, unknown> = {};
    for (const column of this.columns)
      row[column.propertyName] = driver.prepareHydratedValue(raw[column.databaseName], column);
    return toReceipt(row as unknown as ApprovalReceiptEntity);
  }
}

function takenCandidateId(): Error {
  return new Error(
    'Approval receipt issue matched no receipt of its key: the candidate id is already taken. Use a fresh random id.',
  );
}

function toReceipt(row: ApprovalReceiptEntity): ApprovalReceipt {
  return Object.freeze({
    id: row.id,
    toolCallId: row.toolCallId,
    capability: row.capability,
    bindingFingerprint: row.bindingFingerprint,
    status: row.status,
    reason: row.reason,
    description: row.description,
    subject: row.subject,
    expiresAt: row.expiresAt,
    approvedBy: row.approvedBy,
    approvedAt: row.approvedAt,
    rejectedBy: row.rejectedBy,
    rejectedAt: row.rejectedAt,
    consumedAt: row.consumedAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    principalFingerprint: row.principalFingerprint ?? null,
    conversationFingerprint: row.conversationFingerprint ?? null,
    provenance: row.provenance ?? null,
    batchId: row.batchId ?? null,
    arguments: row.arguments ?? null,
  });
}
