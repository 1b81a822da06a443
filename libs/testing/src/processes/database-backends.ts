import { DataSource } from 'typeorm';

const WAIT_TIMEOUT_MS = 10_000;

/** A DataSource whose pool holds exactly one server connection, and that connection's server-side id. */
export interface SingleConnection {
  readonly dataSource: DataSource;
  /** `pg_backend_pid()` on PostgreSQL, `CONNECTION_ID()` on MariaDB/MySQL. */
  readonly connectionId: number;
}

/**
 * A second DataSource on the same PostgreSQL schema or MariaDB database as `dataSource` (from
 * `openDataSource`), with a pool of one connection: every statement it runs goes through the
 * connection whose id is returned, so a test can kill it. Destroy it yourself.
 *
 * @example
 * const { dataSource: pinned, connectionId } = await openSingleConnection(dataSource);
 */
export async function openSingleConnection(dataSource: DataSource): Promise<SingleConnection> {
  const options = dataSource.options;
  if (options.type !== 'postgres' && options.type !== 'mysql' && options.type !== 'mariadb') {
    throw new Error(`Only server engines have connections to kill, not "${options.type}".`);
  }
  const pinned = await new DataSource({ ...options, migrations: [], poolSize: 1 }).initialize();
  try {
    const [row] = await pinned.query(options.type === 'postgres' ? 'SELECT pg_backend_pid() AS id' : 'SELECT CONNECTION_ID() AS id');
    return { dataSource: pinned, connectionId: Number(row.id) };
  } catch (error) {
    await pinned.destroy();
    throw error;
  }
}

/**
 * Waits until server connection `connectionId` is blocked on a lock (a row another transaction holds),
 * then kills it: `pg_terminate_backend` on PostgreSQL, `KILL CONNECTION` on MariaDB/MySQL. `admin` is
 * any other DataSource on the same server. The wait polls the server's own view of the connection, so
 * the kill lands while the statement is in flight, never before it was sent.
 */
export async function killWhenBlocked(admin: DataSource, connectionId: number): Promise<void> {
  const postgres = admin.options.type === 'postgres';
  const blocked = postgres
    ? `SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'`
    : `SELECT 1 FROM information_schema.INNODB_TRX WHERE trx_mysql_thread_id = ? AND trx_state = 'LOCK WAIT'`;
  const deadline = Date.now() + WAIT_TIMEOUT_MS;
  while ((await admin.query(blocked, [connectionId])).length === 0) {
    if (Date.now() > deadline) throw new Error(`Connection ${connectionId} never blocked on a lock within ${WAIT_TIMEOUT_MS} ms.`);
  }
  await admin.query(postgres ? 'SELECT pg_terminate_backend($1)' : `KILL CONNECTION ${Number(connectionId)}`, postgres ? [connectionId] : []);
}

/** What the drivers say when a connection died under them (pg, mysql2). */
const CONNECTION_LOST = /terminat|killed|closed|lost/i;

/**
 * Runs `action`; if it fails because the pool handed out the killed connection before noticing it died
 * (pg learns that from the socket's end, a moment after the error), runs it once more on a fresh one.
 * Any other failure propagates.
 */
export async function onceReconnected<T>(action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (!CONNECTION_LOST.test(String(error))) throw error;
    return action();
  }
}
