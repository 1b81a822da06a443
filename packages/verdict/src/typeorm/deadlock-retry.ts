import { QueryFailedError } from 'typeorm';

/** MySQL/MariaDB's error number for a deadlock victim (`ER_LOCK_DEADLOCK`). */
const ER_LOCK_DEADLOCK = 1213;
/** PostgreSQL's SQLSTATE for a deadlock victim (`deadlock_detected`). */
const DEADLOCK_DETECTED = '40P01';
/** PostgreSQL's SQLSTATE for a statement refused under REPEATABLE READ or SERIALIZABLE (`serialization_failure`). */
const SERIALIZATION_FAILURE = '40001';
/** How often one autocommitted statement is sent in all when the server picks it as a deadlock victim. */
export const DEADLOCK_ATTEMPTS = 3;

/** Whether `error` is the server's report that it rolled this statement's transaction back to break a deadlock. */
export function isDeadlock(error: unknown): boolean {
  if (!(error instanceof QueryFailedError)) return false;
  const driverError = error.driverError as { errno?: number; code?: string } | undefined;
  return driverError?.errno === ER_LOCK_DEADLOCK || driverError?.code === DEADLOCK_DETECTED;
}

/**
 * Whether `error` is PostgreSQL's report that it rolled this statement's transaction back because a concurrent
 * transaction changed what it read or wrote first (only under REPEATABLE READ or SERIALIZABLE). MySQL/MariaDB's
 * deadlock shares the SQLSTATE, not this `code`.
 */
export function isSerializationFailure(error: unknown): boolean {
  if (!(error instanceof QueryFailedError)) return false;
  return (error.driverError as { code?: string } | undefined)?.code === SERIALIZATION_FAILURE;
}

/**
 * Sends `statement` — ONE autocommitted statement, never one inside a transaction — again when the server
 * reports it a deadlock victim, at most {@link DEADLOCK_ATTEMPTS} times in all. A victim's transaction (here:
 * the statement alone) was rolled back entirely, so sending it again cannot write anything twice. Any other
 * error, and the last attempt's deadlock, rejects as it came.
 *
 * @example
 * await retryDeadlockVictim(() => dataSource.createQueryBuilder().insert().into(Entity).values(rows).execute());
 */
export async function retryDeadlockVictim<T>(statement: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await statement();
    } catch (error) {
      if (attempt >= DEADLOCK_ATTEMPTS || !isDeadlock(error)) throw error;
    }
  }
}
