import type { DataSource } from 'typeorm';
import { Equal, In } from 'typeorm';
import { refusedResolution, resolvable, resolvedClaim } from '../execution-claims/claim-resolution-rules.js';
import type {
  ClaimAdmission,
  ClaimRequest,
  ClaimResolution,
  ClaimResolutionRequest,
  ExecutionClaimStore,
} from '../execution-claims/execution-claim-store.interface.js';
import type { ExecutionClaim } from '../execution-claims/execution-claim.js';
import { ExecutionClaimStatus } from '../execution-claims/execution-claim-status.js';
import { ExecutionClaimEntity } from './execution-claim.entity.js';
import { StoreConnection } from './store-connection.js';

const TABLE = 'verdict_execution_claims';
const { Claimed, Released } = ExecutionClaimStatus;

/**
 * Execution claims in `verdict_execution_claims`, shared by every process and node on the database.
 * Admission is one atomic statement and one round trip:
 * - PostgreSQL and SQLite: `INSERT … ON CONFLICT (binding_fingerprint) DO UPDATE … WHERE status =
 *   'released' RETURNING id, attempt` — a returned row is an admission (new, or a released claim
 *   re-claimed with attempt + 1); no row is a refusal, whose state is then read (the slow path).
 * - MySQL/MariaDB: `INSERT … ON DUPLICATE KEY UPDATE` whose `LAST_INSERT_ID(expr)` leaves the admitted
 *   attempt (0 for a refusal) in the OK packet's insert id; a re-claim or a refusal then reads the row.
 * Completion is a conditional `UPDATE … WHERE status = 'claimed'`; an operator's resolution reads the
 * claim and updates it only if its (status, attempt) is still what was read, so `from` is exact.
 *
 * The DataSource needs `verdictEntities` and `verdictMigrations` (on MySQL/MariaDB `timezone: 'Z'`).
 * Only a DataSource is accepted, never an EntityManager: on PostgreSQL and MySQL/MariaDB every write
 * takes a pooled connection of its own and commits on its own, so it never joins an application
 * transaction (a pool of one connection held by an open transaction would therefore wait for it). On
 * better-sqlite3, whose one connection TypeORM shares, a write while a transaction is open fails with
 * `OuterTransactionError` and changes nothing; several processes on one SQLite file need WAL
 * (`enableWAL: true`) and a busy timeout (TypeORM's `timeout`, 5000 ms by default). Database failures
 * reject, as TypeORM's `QueryFailedError` on every engine: they are never reported as a refusal.
 *
 * @example
 * VerdictModule.forRoot({ executionClaims: new TypeOrmExecutionClaimStore(dataSource) });
 */
export class TypeOrmExecutionClaimStore implements ExecutionClaimStore {
  private readonly connection: StoreConnection;
  private readonly admitSql: string;
  private readonly finishSql: string;
  private readonly finishAttemptSql: string;
  private readonly resolveSql: string;

  constructor(private readonly dataSource: DataSource) {
    this.connection = new StoreConnection(dataSource, 'TypeOrmExecutionClaimStore');
    const p = (index: number) => this.connection.param(index);
    this.admitSql = this.connection.dialect === 'mysql' ? MYSQL_ADMIT : upsertAdmit(p);
    this.finishSql = `UPDATE ${TABLE} SET status = ${p(1)}, updated_at = ${p(2)} WHERE id = ${p(3)} AND status = '${Claimed}'`;
    this.finishAttemptSql = `${this.finishSql} AND attempt = ${p(4)}`;
    this.resolveSql =
      `UPDATE ${TABLE} SET status = ${p(1)}, updated_at = ${p(2)}, resolved_by = ${p(3)}, operator_identity = ${p(4)}, resolution_reason = ${p(5)}, ` +
      `resolved_at = ${p(6)} WHERE id = ${p(7)} AND status = ${p(8)} AND attempt = ${p(9)}`;
  }

  async admit({ capability, policy, bindingFingerprint, candidateId, now }: ClaimRequest): Promise<ClaimAdmission> {
    const at = this.connection.instant(now);
    if (this.connection.dialect === 'mysql') {
      const { insertId: attempt } = await this.connection.write('Execution claim admission', this.admitSql, [
        ...[candidateId, capability, policy, bindingFingerprint, at, at],
        ...[bindingFingerprint, bindingFingerprint, at, bindingFingerprint, at, bindingFingerprint],
      ]);
      if (attempt === 1) return { admitted: true, claimId: candidateId, attempt };
      const claim = await this.byBinding(bindingFingerprint);
      return attempt > 1 ? { admitted: true, claimId: claim.id, attempt } : refusal(claim);
    }
    const { rows } = await this.connection.write('Execution claim admission', this.admitSql, [
      candidateId,
      capability,
      policy,
      bindingFingerprint,
      at,
      at,
    ]);
    const [admitted] = rows;
    if (admitted !== undefined)
      return { admitted: true, claimId: String(admitted.id), attempt: Number(admitted.attempt) };
    return refusal(await this.byBinding(bindingFingerprint));
  }

  async complete(claimId: string, now: Date, attempt?: number): Promise<boolean> {
    return this.finish('Execution claim completion', claimId, ExecutionClaimStatus.Completed, now, attempt);
  }

  async markIndeterminate(claimId: string, now: Date, attempt?: number): Promise<boolean> {
    return this.finish('Execution claim finalization', claimId, ExecutionClaimStatus.Indeterminate, now, attempt);
  }

  async resolve(request: ClaimResolutionRequest): Promise<ClaimResolution> {
    const at = this.connection.instant(request.now);
    // Not a gate but an operator's command: each lost race means the claim moved on to a later
    // (status, attempt), so the decision is taken again on what it has become (with `expected`: refused).
    for (;;) {
      const claim = await this.find(request.claimId);
      if (claim === null || !resolvable(claim, request)) return refusedResolution(claim, request);
      const { affected } = await this.connection.write('Execution claim resolution', this.resolveSql, [
        ...[request.to, at, request.by, request.operatorIdentity ?? null, request.reason, at],
        ...[claim.id, claim.status, claim.attempt],
      ]);
      if (affected === 1) {
        return { outcome: 'resolved', claim: resolvedClaim(claim, request), from: claim.status };
      }
    }
  }

  async unresolved(): Promise<ExecutionClaim[]> {
    const rows = await this.repository().find({
      where: { status: In([ExecutionClaimStatus.Claimed, ExecutionClaimStatus.Indeterminate]) },
      order: { claimedAt: 'ASC', id: 'ASC' },
    });
    return rows.map(toClaim);
  }

  async find(claimId: string): Promise<ExecutionClaim | null> {
    // `Equal`: a DataSource with `invalidWhereValuesBehavior: { null: 'ignore' }` drops a bare null from the
    // condition, and would answer the first claim of the table; compared explicitly, no id matches nothing.
    const row = await this.repository().findOneBy({ id: Equal(claimId) });
    return row === null ? null : toClaim(row);
  }

  private async finish(
    gate: string,
    claimId: string,
    status: ExecutionClaimStatus,
    now: Date,
    attempt?: number,
  ): Promise<boolean> {
    const parameters = [status, this.connection.instant(now), claimId];
    const { affected } = await (attempt === undefined
      ? this.connection.write(gate, this.finishSql, parameters)
      : this.connection.write(gate, this.finishAttemptSql, [...parameters, attempt]));
    return affected === 1;
  }

  private async byBinding(bindingFingerprint: string): Promise<ExecutionClaim> {
    const row = await this.repository().findOneBy({ bindingFingerprint: Equal(bindingFingerprint) });
    // Only reachable on MySQL/MariaDB when the candidate id equalled another claim's id: nothing was written.
    if (row === null)
      throw new Error(
        'Execution claim admission matched no claim of its binding: the candidate id is already taken. Use a fresh random id.',
      );
    return toClaim(row);
  }

  private repository() {
    return this.dataSource.getRepository(ExecutionClaimEntity);
  }
}

/** PostgreSQL and SQLite (3.35+): insert, or re-claim a released row; a returned row is an admission. */
function upsertAdmit(p: (index: number) => string): string {
  return (
    `INSERT INTO ${TABLE} (id, capability, policy, binding_fingerprint, status, attempt, claimed_at, updated_at) ` +
    `VALUES (${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, '${Claimed}', 1, ${p(5)}, ${p(6)}) ` +
    `ON CONFLICT (binding_fingerprint) DO UPDATE SET status = '${Claimed}', attempt = ${TABLE}.attempt + 1, ` +
    `claimed_at = excluded.claimed_at, updated_at = excluded.updated_at ` +
    `WHERE ${TABLE}.status = '${Released}' ` +
    `RETURNING id, attempt`
  );
}

/**
 * MySQL/MariaDB: the insert id is the admitted attempt — 1 inserted, attempt + 1 re-claimed, 0 refused —
 * because affected rows cannot tell an insert from an unchanged row under CLIENT_FOUND_ROWS. Assignments
 * run left to right, so `status` is assigned last; the binding check keeps a colliding candidate id
 * (a primary-key duplicate) from touching another claim.
 */
const RECLAIM = `status = '${Released}' AND binding_fingerprint = ?`;
const MYSQL_ADMIT =
  `INSERT INTO ${TABLE} (id, capability, policy, binding_fingerprint, status, attempt, claimed_at, updated_at) ` +
  `VALUES (?, ?, ?, ?, '${Claimed}', LAST_INSERT_ID(1), ?, ?) ` +
  `ON DUPLICATE KEY UPDATE ` +
  `attempt = IF(${RECLAIM}, LAST_INSERT_ID(attempt + 1), attempt + LAST_INSERT_ID(0)), ` +
  `claimed_at = IF(${RECLAIM}, ?, claimed_at), ` +
  `updated_at = IF(${RECLAIM}, ?, updated_at), ` +
  `status = IF(${RECLAIM}, '${Claimed}', status)`;

function refusal(claim: ExecutionClaim): ClaimAdmission {
  return { admitted: false, claimId: claim.id, status: claim.status, attempt: claim.attempt };
}

function toClaim(row: ExecutionClaimEntity): ExecutionClaim {
  return Object.freeze({
    id: row.id,
    capability: row.capability,
    policy: row.policy,
    bindingFingerprint: row.bindingFingerprint,
    status: row.status,
    attempt: row.attempt,
    claimedAt: row.claimedAt,
    updatedAt: row.updatedAt,
    resolvedBy: row.resolvedBy,
    operatorIdentity: row.operatorIdentity,
    resolutionReason: row.resolutionReason,
    resolvedAt: row.resolvedAt,
  });
}
