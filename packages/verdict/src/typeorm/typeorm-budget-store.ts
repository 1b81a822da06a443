import type { DataSource } from 'typeorm';
import type {
  BudgetReservation,
  BudgetReservationAnswer,
  BudgetReservationRequest,
  BudgetStore,
} from '../budgets/budget-store.interface.js';
import { assertBudgetAmount } from '../budgets/budget-amount.js';
import { StoreConnection } from './store-connection.js';

const TABLE = 'verdict_budget_windows';

/**
 * Spend-budget windows in `verdict_budget_windows`, shared by every process and node on the database. A reservation
 * is one atomic statement and one round trip, with no retry loop:
 * - PostgreSQL and SQLite: `INSERT … ON CONFLICT (bucket_fingerprint, window_start) DO UPDATE SET reserved =
 *   reserved + amount WHERE spent + reserved + amount <= limit RETURNING spent, reserved` — no returned row means the
 *   limit refused, and nothing moved.
 * - MySQL/MariaDB: `INSERT … ON DUPLICATE KEY UPDATE reserved = IF(spent + reserved + amount <= limit,
 *   LAST_INSERT_ID(spent + reserved + amount + 1) - spent - 1, …)`, whose OK packet's insert id is what the window
 *   holds after the call plus one (0 when refused).
 * A reservation of 0 (where a budget stands, a ceiling's check) is one `SELECT` of the window and writes nothing: no
 * empty row per key and window, and it runs on a read-only connection too.
 * Commit and release are one conditional `UPDATE` each (`reserved >= amount`). `prune(now)` deletes the windows that
 * ended at or before `now`. An amount or limit that is not a non-negative safe integer rejects with
 * `InvalidBudgetReservationError` before any statement runs.
 *
 * The DataSource needs `verdictEntities` and `verdictMigrations` (on MySQL/MariaDB `timezone: 'Z'`). Writes never join
 * an application transaction (as `TypeOrmRateLimitStore`'s); database failures reject as TypeORM's
 * `QueryFailedError`: they are never reported as a throttle.
 *
 * @example
 * VerdictModule.forRoot({ budgets: new TypeOrmBudgetStore(dataSource) });
 */
export class TypeOrmBudgetStore implements BudgetStore {
  private readonly connection: StoreConnection;
  private readonly reserveSql: string;
  private readonly settleSql: string;
  private readonly standingSql: string;
  private readonly pruneSql: string;

  constructor(dataSource: DataSource) {
    this.connection = new StoreConnection(dataSource, 'TypeOrmBudgetStore');
    const p = (index: number) => this.connection.param(index);
    this.reserveSql = this.connection.dialect === 'mysql' ? MYSQL_RESERVE : upsertReserve(p);
    const window = `bucket_fingerprint = ${p(3)} AND window_start = ${p(4)} AND reserved >= ${p(5)}`;
    this.settleSql = `UPDATE ${TABLE} SET spent = spent + ${p(1)}, reserved = reserved - ${p(2)} WHERE ${window}`;
    this.standingSql = `SELECT spent, reserved FROM ${TABLE} WHERE bucket_fingerprint = ${p(1)} AND window_start = ${p(2)}`;
    this.pruneSql = `DELETE FROM ${TABLE} WHERE expires_at <= ${p(1)}`;
  }

  async reserve({
    bucketFingerprint,
    windowStart,
    windowSeconds,
    limit,
    amount,
  }: BudgetReservationRequest): Promise<BudgetReservationAnswer> {
    assertBudgetAmount('reserve', 'amount', amount);
    assertBudgetAmount('reserve', 'limit', limit);
    const resetAt = new Date(windowStart.getTime() + windowSeconds * 1000);
    const refused = { reserved: false, remaining: 0, resetAt };
    // The insert would reserve a first amount whatever the limit: one above the limit is refused here.
    if (amount > limit) return refused;
    const { connection } = this;
    const start = connection.instant(windowStart);
    if (amount === 0) return this.standing(bucketFingerprint, start, limit, resetAt);
    const end = connection.instant(resetAt);
    const parameters =
      connection.dialect === 'mysql'
        ? [bucketFingerprint, start, amount, end, amount, limit, amount]
        : [bucketFingerprint, start, amount, end, amount, amount, limit];
    const result = await connection.write('Budget reservation', this.reserveSql, parameters);
    const held =
      connection.dialect === 'mysql'
        ? Number(result.insertId) - 1
        : result.rows.length === 0
          ? -1
          : Number(result.rows[0]!.spent) + Number(result.rows[0]!.reserved);
    return held < 0 ? refused : { reserved: true, remaining: Math.max(0, limit - held), resetAt };
  }

  async commit(reservation: BudgetReservation): Promise<boolean> {
    assertBudgetAmount('commit', 'amount', reservation.amount);
    return this.settle('Budget commit', reservation.amount, reservation);
  }

  async release(reservation: BudgetReservation): Promise<boolean> {
    assertBudgetAmount('release', 'amount', reservation.amount);
    return this.settle('Budget release', 0, reservation);
  }

  async prune(now: Date): Promise<number> {
    const { affected } = await this.connection.write('Budget pruning', this.pruneSql, [this.connection.instant(now)]);
    return affected;
  }

  /** A reservation of 0: the window's totals read, nothing written (a window never written holds 0). */
  private async standing(
    bucketFingerprint: string,
    start: Date | string,
    limit: number,
    resetAt: Date,
  ): Promise<BudgetReservationAnswer> {
    const [row] = await this.connection.read(this.standingSql, [bucketFingerprint, start]);
    const held = row === undefined ? 0 : Number(row.spent) + Number(row.reserved);
    return held > limit
      ? { reserved: false, remaining: 0, resetAt }
      : { reserved: true, remaining: limit - held, resetAt };
  }

  /** Takes the reservation off `reserved` and adds `spent` to the window's spend, in one conditional update. */
  private async settle(gate: string, spent: number, reservation: BudgetReservation): Promise<boolean> {
    const { bucketFingerprint, windowStart, amount } = reservation;
    // Nothing to move (and MySQL would report an unchanged row as not affected).
    if (amount === 0) return true;
    const parameters = [spent, amount, bucketFingerprint, this.connection.instant(windowStart), amount];
    const { affected } = await this.connection.write(gate, this.settleSql, parameters);
    return affected > 0;
  }
}

/** PostgreSQL and SQLite (3.35+): a returned row is a reservation, with the window's totals after it. */
function upsertReserve(p: (index: number) => string): string {
  return (
    `INSERT INTO ${TABLE} (bucket_fingerprint, window_start, spent, reserved, expires_at) ` +
    `VALUES (${p(1)}, ${p(2)}, 0, ${p(3)}, ${p(4)}) ` +
    `ON CONFLICT (bucket_fingerprint, window_start) DO UPDATE SET reserved = ${TABLE}.reserved + ${p(5)} ` +
    `WHERE ${TABLE}.spent + ${TABLE}.reserved + ${p(6)} <= ${p(7)} ` +
    `RETURNING spent, reserved`
  );
}

/**
 * MySQL/MariaDB: the insert id is what the window holds (spent + reserved) after this call, plus one — so that 0 can
 * mean refused (unchanged) even when an amount of 0 is reserved in an empty window.
 */
const MYSQL_RESERVE =
  `INSERT INTO ${TABLE} (bucket_fingerprint, window_start, spent, reserved, expires_at) ` +
  `VALUES (?, ?, 0, LAST_INSERT_ID(? + 1) - 1, ?) ` +
  `ON DUPLICATE KEY UPDATE reserved = IF(spent + reserved + ? <= ?, ` +
  `LAST_INSERT_ID(spent + reserved + ? + 1) - spent - 1, reserved + LAST_INSERT_ID(0))`;
