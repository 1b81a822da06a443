import type { DataSource, QueryRunner } from 'typeorm';
import { inOwnTransaction } from './own-transaction.js';

/** How long a MySQL/MariaDB issuer waits for another's named lock before the store fails: 30 seconds. */
const MYSQL_LOCK_TIMEOUT_SECONDS = 30;
/** PostgreSQL advisory locks of Verdict use this first key, so they never meet an application's one-key locks. */
const POSTGRES_LOCK_CLASS = 0x56524454;

/** One statement on the locked connection: the rows it returned (`RETURNING` or a read). */
export type LockedQuery = (sql: string, parameters: readonly unknown[]) => Promise<Array<Record<string, unknown>>>;

/**
 * Runs `work` on a pooled connection of its own while it holds an exclusive lock named by `fingerprint`
 * (hex), on PostgreSQL and MySQL/MariaDB; holders of other names run in parallel. Several fingerprints:
 * a lock for each, taken in one global order (sorted by the lock's own key, duplicates once), whatever order
 * they are given in, so two holders of overlapping sets never deadlock. PostgreSQL: a READ COMMITTED
 * transaction that first takes `pg_advisory_xact_lock` (released by its commit or rollback), so every
 * statement after it reads what earlier holders committed.
 * MySQL/MariaDB: `GET_LOCK` around autocommitted statements, released in `finally` (and by the server if
 * the connection dies); not taken within 30 s → rejects. Never joins an application transaction.
 *
 * @example
 * await withNamedLock(dataSource, 'postgres', principalFingerprint, async (query) => query('SELECT 1', []));
 */
export async function withNamedLock<T>(
  dataSource: DataSource,
  dialect: 'postgres' | 'mysql',
  fingerprint: string | readonly string[],
  work: (query: LockedQuery) => Promise<T>,
): Promise<T> {
  const fingerprints = typeof fingerprint === 'string' ? [fingerprint] : fingerprint;
  if (fingerprints.length === 0) throw new Error('withNamedLock needs at least one fingerprint: no lock, no work.');
  const runner = dataSource.createQueryRunner('master');
  const query: LockedQuery = async (sql, parameters) => {
    const result = await runner.query(sql, [...parameters], true);
    return Array.isArray(result.records) ? result.records : [];
  };
  try {
    return dialect === 'postgres'
      ? await advisoryLocked(runner, fingerprints, () => work(query))
      : await namedLocked(runner, fingerprints, () => work(query));
  } finally {
    await runner.release();
  }
}

/**
 * A READ COMMITTED transaction of its own that takes the advisory locks in its first round trip, one statement each in
 * ascending key order, then `work`: the locks' keys are integers computed here, never input, so the begin and the
 * locks go in one message.
 */
function advisoryLocked<T>(runner: QueryRunner, fingerprints: readonly string[], work: () => Promise<T>): Promise<T> {
  const keys = [...new Set(fingerprints.map((fingerprint) => Number.parseInt(fingerprint.slice(0, 8), 16) | 0))];
  const locks = keys.sort((a, b) => a - b).map((key) => `SELECT pg_advisory_xact_lock(${POSTGRES_LOCK_CLASS}, ${key})`);
  return inOwnTransaction(runner, 'postgres', work, locks.join('; '));
}

/** `GET_LOCK` of each name in ascending order, then `work`; every lock taken is released, the last taken first. */
function namedLocked<T>(runner: QueryRunner, fingerprints: readonly string[], work: () => Promise<T>): Promise<T> {
  const names = [...new Set(fingerprints.map((fingerprint) => `verdict:${fingerprint.slice(0, 48)}`))].sort();
  return lockedInTurn(runner, names, work);
}

async function lockedInTurn<T>(runner: QueryRunner, names: readonly string[], work: () => Promise<T>): Promise<T> {
  const [name, ...rest] = names;
  if (name === undefined) return work();
  const [{ locked }] = (await runner.query('SELECT GET_LOCK(?, ?) AS locked', [
    name,
    MYSQL_LOCK_TIMEOUT_SECONDS,
  ])) as Array<{ locked: number | string | null }>;
  if (Number(locked) !== 1)
    throw new Error(
      `Could not take the lock ${name} within ${MYSQL_LOCK_TIMEOUT_SECONDS} s: another issuer holds it; retry.`,
    );
  try {
    return await lockedInTurn(runner, rest, work);
  } finally {
    await runner.query('SELECT RELEASE_LOCK(?)', [name]);
  }
}
