import type { QueryRunner } from 'typeorm';
import { VerdictConfigurationError } from '../errors/configuration.error.js';

/**
 * Runs `work` in a READ COMMITTED transaction of its own on `runner`'s connection, commits, and returns its answer.
 * - PostgreSQL: one simple-protocol message begins it, together with `alongBegin` when given (a statement Verdict
 *   built from no input, such as taking an advisory lock), so both cost one round trip.
 * - MySQL/MariaDB: `SET TRANSACTION ISOLATION LEVEL READ COMMITTED`, then `START TRANSACTION`, as TypeORM begins one.
 *
 * Any failure (the begin, `work`, the COMMIT) rolls back and rethrows that failure. A connection whose ROLLBACK
 * failed too is released broken, so the pool closes it instead of lending it out inside the transaction. The caller
 * still releases `runner`.
 *
 * @example
 * await inOwnTransaction(runner, 'postgres', () => runner.query('SELECT 1'));
 */
export async function inOwnTransaction<T>(
  runner: QueryRunner,
  dialect: 'postgres' | 'mysql',
  work: () => Promise<T>,
  alongBegin?: string,
): Promise<T> {
  const dropBroken = brokenRelease(runner, dialect);
  try {
    if (dialect === 'postgres')
      await runner.query(`START TRANSACTION ISOLATION LEVEL READ COMMITTED${alongBegin ? `; ${alongBegin}` : ''}`);
    else {
      await runner.query('SET TRANSACTION ISOLATION LEVEL READ COMMITTED');
      await runner.query('START TRANSACTION');
      if (alongBegin) await runner.query(alongBegin);
    }
    const result = await work();
    await runner.query('COMMIT');
    return result;
  } catch (error) {
    // Ends a transaction left open or aborted; where there is none (the begin failed, or COMMIT did and ended it)
    // ROLLBACK is a no-op that at most warns.
    await runner.query('ROLLBACK').catch(dropBroken);
    throw error;
  }
}

/**
 * How `runner`'s connection is given back to the pool as broken. PostgreSQL: TypeORM's
 * `releasePostgresConnection(error)`, after which node-postgres closes the connection. MySQL/MariaDB: mysql2's
 * `destroy()` on the pooled connection, which takes it out of the pool (TypeORM's later `release()` then does
 * nothing). Checked before the transaction begins: a TypeORM without the hook fails every section, never returns a
 * connection inside a transaction.
 */
function brokenRelease(runner: QueryRunner, dialect: 'postgres' | 'mysql'): (error: unknown) => Promise<void> {
  const hooks = runner as QueryRunner & {
    releasePostgresConnection?(error: unknown): Promise<void>;
    databaseConnection?: { destroy?(): void };
  };
  if (dialect === 'postgres') {
    if (typeof hooks.releasePostgresConnection !== 'function')
      throw new VerdictConfigurationError(
        "TypeORM's PostgreSQL query runner has no releasePostgresConnection(): Verdict cannot drop a connection " +
          'whose ROLLBACK failed, so it opens no transaction. Install the TypeORM version its peer range names.',
      );
    return (error) => hooks.releasePostgresConnection!(error);
  }
  return async () => hooks.databaseConnection?.destroy?.();
}
