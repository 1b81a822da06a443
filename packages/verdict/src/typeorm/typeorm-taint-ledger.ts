import type { DataSource } from 'typeorm';
import type { TaintLedger } from '../provenance/taint/taint-ledger.interface.js';
import { batches } from '../shared/batches.js';
import { StoreConnection } from './store-connection.js';

const TABLE = 'verdict_taint_entries';
/** Rows per recording statement (3 parameters each), far below every engine's parameter limit. */
const RECORD_BATCH = 1000;
/** Fingerprints per lookup statement: one statement for any proposal short of this many candidate values. */
const LOOKUP_BATCH = 5000;

/**
 * The taint ledger in `verdict_taint_entries` (SQLite, PostgreSQL, MySQL/MariaDB), shared by every process and
 * node on the database:
 * - `tainted`: one indexed statement, `SELECT fingerprint … WHERE tenant_fingerprint = ? AND fingerprint IN (…)
 *   AND expires_at > ?`, on the primary key (tenant_fingerprint, fingerprint).
 * - `record`: one upsert (`ON CONFLICT … DO UPDATE` on PostgreSQL and SQLite, `ON DUPLICATE KEY UPDATE` on
 *   MySQL/MariaDB) that keeps the later expiry; it never joins an application transaction (see
 *   `TypeOrmRateLimitStore`), so a rollback cannot clean a value.
 * - `prune(now)`: deletes the entries expired at `now`.
 *
 * The DataSource needs `verdictEntities` and `verdictMigrations` (on MySQL/MariaDB `timezone: 'Z'`). Database
 * failures reject as TypeORM's `QueryFailedError`, and stop the proposal.
 *
 * @example
 * VerdictModule.forRoot({ ..., provenance: { taint: { ledger: new TypeOrmTaintLedger(dataSource) } } });
 */
export class TypeOrmTaintLedger implements TaintLedger {
  private readonly connection: StoreConnection;

  constructor(private readonly dataSource: DataSource) {
    this.connection = new StoreConnection(dataSource, 'TypeOrmTaintLedger');
  }

  async record(tenant: string, fingerprints: readonly string[], expiresAt: Date): Promise<void> {
    const expiry = this.connection.instant(expiresAt);
    for (const batch of batches([...new Set(fingerprints)], RECORD_BATCH))
      // One text per batch size: sent unnamed, so sizes do not pile up prepared statements (ADR 0120).
      await this.connection.write(
        'Taint recording',
        this.recordSql(batch.length),
        batch.flatMap((fingerprint) => [tenant, fingerprint, expiry]),
        { named: false },
      );
  }

  async tainted(tenant: string, fingerprints: readonly string[], now: Date): Promise<ReadonlySet<string>> {
    const found = new Set<string>();
    for (const batch of batches([...new Set(fingerprints)], LOOKUP_BATCH)) {
      const rows: Array<{ fingerprint: string }> = await this.dataSource.query(this.lookupSql(batch.length), [
        tenant,
        ...batch,
        this.connection.instant(now),
      ]);
      for (const row of rows) found.add(row.fingerprint);
    }
    return found;
  }

  async prune(now: Date): Promise<number> {
    const { affected } = await this.connection.write(
      'Taint pruning',
      `DELETE FROM ${TABLE} WHERE expires_at <= ${this.connection.param(1)}`,
      [this.connection.instant(now)],
    );
    return affected;
  }

  /** The lookup statement of `count` fingerprints, the one every proposal of an agent costs (shown for EXPLAIN). */
  lookupSql(count: number): string {
    const p = (index: number) => this.connection.param(index);
    const list = Array.from({ length: count }, (_, i) => p(i + 2)).join(', ');
    return `SELECT fingerprint FROM ${TABLE} WHERE tenant_fingerprint = ${p(1)} AND fingerprint IN (${list}) AND expires_at > ${p(count + 2)}`;
  }

  private recordSql(count: number): string {
    const p = (index: number) => this.connection.param(index);
    const rows = Array.from({ length: count }, (_, i) => `(${p(3 * i + 1)}, ${p(3 * i + 2)}, ${p(3 * i + 3)})`).join(
      ', ',
    );
    const insert = `INSERT INTO ${TABLE} (tenant_fingerprint, fingerprint, expires_at) VALUES ${rows}`;
    switch (this.connection.dialect) {
      case 'mysql':
        return `${insert} ON DUPLICATE KEY UPDATE expires_at = GREATEST(expires_at, VALUES(expires_at))`;
      case 'postgres':
        return `${insert} ON CONFLICT (tenant_fingerprint, fingerprint) DO UPDATE SET expires_at = GREATEST(${TABLE}.expires_at, EXCLUDED.expires_at)`;
      case 'sqlite':
        // SQLite's two-argument MAX is the scalar maximum; the UTC text form orders as the instants do.
        return `${insert} ON CONFLICT (tenant_fingerprint, fingerprint) DO UPDATE SET expires_at = MAX(${TABLE}.expires_at, excluded.expires_at)`;
    }
  }
}
