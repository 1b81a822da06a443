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
 * a lock for each, taken in the order given (callers that take several always order them alike, so they
 * never deadlock). PostgreSQL: a READ COMMITTED transaction that first takes `pg_advisory_xact_lock`
 * (released by its commit or rollback), so every statement after it reads what earlier holders committed.
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
 * order, then `work`: the locks' keys are integers computed here, never input, so the begin and the locks go in one
 * message.
 */
function advisoryLocked<T>(runner: QueryRunner, fingerprints: readonly string[], work: () => Promise<T>): Promise<T> {
  const locks = fingerprints.map((fingerprint) => {
    const key = Number.parseInt(fingerprint.slice(0, 8), 16) | 0;
    return `SELECT pg_advisory_xact_lock(${POSTGRES_LOCK_CLASS}, ${key})`;
  });
  return inOwnTransaction(runner, 'postgres', work, locks.join('; '));
}

/** `GET_LOCK` of each name in order, then `work`; every lock taken is released, the last taken first. */
async function namedLocked<T>(
  runner: QueryRunner,
  fingerprints: readonly string[],
  work: () => Promise<T>,
): Promise<T> {
  const [first, ...rest] = fingerprints;
  if (first === undefined) return work();
  const name = `verdict:${first.slice(0, 48)}`;
  const [{ locked }] = (await runner.query('SELECT GET_LOCK(?, ?) AS locked', [
    name,
    MYSQL_LOCK_TIMEOUT_SECONDS,
  ])) as Array<{ locked: number | string | null }>;
  if (Number(locked) !== 1)
    throw new Error(
      `Could not take the lock ${name} within ${MYSQL_LOCK_TIMEOUT_SECONDS} s: another issuer holds it; retry.`,
    );
  try {
    return await namedLocked(runner, rest, work);
  } finally {
    await runner.query('SELECT RELEASE_LOCK(?)', [name]);
  }
}
