import type { DataSource, QueryRunner } from 'typeorm';

/** How long a MySQL/MariaDB issuer waits for another's named lock before the store fails: 30 seconds. */
const MYSQL_LOCK_TIMEOUT_SECONDS = 30;
/** PostgreSQL advisory locks of Verdict use this first key, so they never meet an application's one-key locks. */
const POSTGRES_LOCK_CLASS = 0x56524454;

/** One statement on the locked connection: the rows it returned (`RETURNING` or a read). */
export type LockedQuery = (sql: string, parameters: readonly unknown[]) => Promise<Array<Record<string, unknown>>>;

/**
 * Runs `work` on a pooled connection of its own while it holds an exclusive lock named by `fingerprint`
 * (hex), on PostgreSQL and MySQL/MariaDB; holders of other names run in parallel. PostgreSQL: a
 * READ COMMITTED transaction that first takes `pg_advisory_xact_lock` (released by its commit or
 * rollback), so every statement after it reads what earlier holders committed. MySQL/MariaDB:
 * `GET_LOCK` around autocommitted statements, released in `finally` (and by the server if the
 * connection dies); not taken within 30 s → rejects. Never joins an application transaction.
 *
 * @example
 * await withNamedLock(dataSource, 'postgres', principalFingerprint, async (query) => query('SELECT 1', []));
 */
export async function withNamedLock<T>(
  dataSource: DataSource,
  dialect: 'postgres' | 'mysql',
  fingerprint: string,
  work: (query: LockedQuery) => Promise<T>,
): Promise<T> {
  const runner = dataSource.createQueryRunner('master');
  const query: LockedQuery = async (sql, parameters) => {
    const result = await runner.query(sql, [...parameters], true);
    return Array.isArray(result.records) ? result.records : [];
  };
  try {
    return dialect === 'postgres'
      ? await advisoryLocked(runner, fingerprint, () => work(query))
      : await namedLocked(runner, fingerprint, () => work(query));
  } finally {
    await runner.release();
  }
}

/**
 * A READ COMMITTED transaction that takes the advisory lock in its first round trip: both statements in one
 * simple-protocol message (the lock's keys are integers computed here, never input), then `work`, then COMMIT. On any
 * failure it rolls back; a connection whose rollback failed too is released broken, so the pool drops it rather than
 * lend it out inside a transaction.
 */
async function advisoryLocked<T>(runner: QueryRunner, fingerprint: string, work: () => Promise<T>): Promise<T> {
  const key = Number.parseInt(fingerprint.slice(0, 8), 16) | 0;
  try {
    await runner.query(
      `START TRANSACTION ISOLATION LEVEL READ COMMITTED; SELECT pg_advisory_xact_lock(${POSTGRES_LOCK_CLASS}, ${key})`,
    );
    const result = await work();
    await runner.query('COMMIT');
    return result;
  } catch (error) {
    // Ends a transaction the section left open or aborted (the lock's statement failed, `work` threw); where there is
    // none (START failed, or COMMIT did and ended it) ROLLBACK only warns.
    await runner.query('ROLLBACK').catch((rollbackError: unknown) => releaseBroken(runner, rollbackError));
    throw error;
  }
}

/**
 * Gives `runner`'s connection back to the pool as broken: node-postgres closes it instead of reusing it. Through
 * TypeORM's PostgreSQL query runner's `releasePostgresConnection(error)`, which test/typeorm/named-lock.spec.ts pins.
 */
function releaseBroken(runner: QueryRunner, error: unknown): Promise<void> {
  const release = (runner as QueryRunner & { releasePostgresConnection?(error: unknown): Promise<void> })
    .releasePostgresConnection;
  return release === undefined ? runner.release() : release.call(runner, error);
}

async function namedLocked<T>(runner: QueryRunner, fingerprint: string, work: () => Promise<T>): Promise<T> {
  const name = `verdict:${fingerprint.slice(0, 48)}`;
  const [{ locked }] = (await runner.query('SELECT GET_LOCK(?, ?) AS locked', [
    name,
    MYSQL_LOCK_TIMEOUT_SECONDS,
  ])) as Array<{ locked: number | string | null }>;
  if (Number(locked) !== 1)
    throw new Error(
      `Could not take the lock ${name} within ${MYSQL_LOCK_TIMEOUT_SECONDS} s: another issuer holds it; retry.`,
    );
  try {
    return await work();
  } finally {
    await runner.query('SELECT RELEASE_LOCK(?)', [name]);
  }
}
