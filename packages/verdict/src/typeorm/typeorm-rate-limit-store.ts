import type { DataSource } from 'typeorm';
import type {
  RateLimitConsumption,
  RateLimitRequest,
  RateLimitStore,
} from '../rate-limits/rate-limit-store.interface.js';
import { assertRateLimitRequest } from '../rate-limits/rate-limit-request.js';
import { StoreConnection } from './store-connection.js';

const TABLE = 'verdict_rate_limit_windows';

/**
 * Fixed-window counters in `verdict_rate_limit_windows`, shared by every process and node on the
 * database. Each consumption is one atomic statement and one round trip, with no retry loop:
 * - PostgreSQL and SQLite: `INSERT … ON CONFLICT (bucket_fingerprint, window_start) DO UPDATE SET count
 *   = count + 1 WHERE count < limit RETURNING count` — no returned row means the limit refused, and the
 *   counter did not move.
 * - MySQL/MariaDB: `INSERT … ON DUPLICATE KEY UPDATE count = IF(count < limit, LAST_INSERT_ID(count + 1),
 *   …)`, whose OK packet's insert id is the count after the call (0 when refused).
 * `prune(now)` deletes the windows that ended at or before `now`. A malformed request (a fractional, `NaN` or
 * out-of-range `limit` or `windowSeconds`, an invalid `windowStart`) is refused with `InvalidRateLimitRequestError`
 * before any statement runs.
 *
 * The DataSource needs `verdictEntities` and `verdictMigrations` (on MySQL/MariaDB `timezone: 'Z'`).
 * Writes never join an application transaction: see `TypeOrmExecutionClaimStore` for how, per engine
 * (on better-sqlite3 an open transaction fails with `OuterTransactionError`). Database failures reject,
 * as TypeORM's `QueryFailedError` on every engine: they are never reported as a throttle.
 *
 * @example
 * VerdictModule.forRoot({ rateLimits: new TypeOrmRateLimitStore(dataSource) });
 */
export class TypeOrmRateLimitStore implements RateLimitStore {
  private readonly connection: StoreConnection;
  private readonly consumeSql: string;
  private readonly pruneSql: string;

  constructor(dataSource: DataSource) {
    this.connection = new StoreConnection(dataSource, 'TypeOrmRateLimitStore');
    const p = (index: number) => this.connection.param(index);
    this.consumeSql = this.connection.dialect === 'mysql' ? MYSQL_CONSUME : upsertConsume(p);
    this.pruneSql = `DELETE FROM ${TABLE} WHERE expires_at <= ${p(1)}`;
  }

  async consume(request: RateLimitRequest): Promise<RateLimitConsumption> {
    assertRateLimitRequest(request);
    const { bucketFingerprint, windowStart, windowSeconds, limit } = request;
    const resetAt = new Date(windowStart.getTime() + windowSeconds * 1000);
    const refused = { allowed: false, count: limit, remaining: 0, resetAt };
    // The insert would count a first unit whatever the limit; a limit of 0 admits nothing.
    if (limit === 0) return refused;
    const parameters = [
      bucketFingerprint,
      this.connection.instant(windowStart),
      this.connection.instant(resetAt),
      limit,
    ];
    const result = await this.connection.write('Rate-limit consumption', this.consumeSql, parameters);
    const count = this.connection.dialect === 'mysql' ? result.insertId : Number(result.rows[0]?.count ?? 0);
    return count === 0 ? refused : { allowed: true, count, remaining: Math.max(0, limit - count), resetAt };
  }

  async prune(now: Date): Promise<number> {
    const { affected } = await this.connection.write('Rate-limit pruning', this.pruneSql, [
      this.connection.instant(now),
    ]);
    return affected;
  }
}

/** PostgreSQL and SQLite (3.35+): a returned row is a consumed unit, with the window's new count. */
function upsertConsume(p: (index: number) => string): string {
  return (
    `INSERT INTO ${TABLE} (bucket_fingerprint, window_start, "count", expires_at) VALUES (${p(1)}, ${p(2)}, 1, ${p(3)}) ` +
    `ON CONFLICT (bucket_fingerprint, window_start) DO UPDATE SET "count" = ${TABLE}."count" + 1 ` +
    `WHERE ${TABLE}."count" < ${p(4)} ` +
    `RETURNING "count"`
  );
}

/**
 * MySQL/MariaDB: the insert id is the window's count after this call — 1 inserted, count + 1 consumed,
 * 0 refused (unchanged) — because affected rows cannot tell an insert from an unchanged row under
 * CLIENT_FOUND_ROWS.
 */
const MYSQL_CONSUME =
  `INSERT INTO ${TABLE} (bucket_fingerprint, window_start, \`count\`, expires_at) VALUES (?, ?, LAST_INSERT_ID(1), ?) ` +
  `ON DUPLICATE KEY UPDATE \`count\` = IF(\`count\` < ?, LAST_INSERT_ID(\`count\` + 1), \`count\` + LAST_INSERT_ID(0))`;
