import { DataSource } from 'typeorm';
import type { QueryRunner } from 'typeorm';
import { setTimeout } from 'node:timers/promises';

/**
 * How long {@link whenBlocked} waits for the lock wait to show: well below InnoDB's default
 * `innodb_lock_wait_timeout` (50 s), long enough for a server slowed by other suites' DDL.
 */
const WAIT_TIMEOUT_MS = 30_000;

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
    const [row] = await pinned.query(
      options.type === 'postgres' ? 'SELECT pg_backend_pid() AS id' : 'SELECT CONNECTION_ID() AS id',
    );
    return { dataSource: pinned, connectionId: Number(row.id) };
  } catch (error) {
    await pinned.destroy();
    throw error;
  }
}

/** A session a test waits to see blocked on a lock: by its server id, or by text its statement contains. */
export type BlockedSession = { readonly connectionId: number } | { readonly statementContaining: string };

/**
 * InnoDB refreshes what `information_schema.INNODB_TRX` shows only once nobody on the server has read it for 100 ms:
 * a poll that reads it more often keeps seeing the snapshot it first read, and would never see a wait that began
 * after it.
 */
const INNODB_TRX_IDLE_MS = 150;

/**
 * Resolves once `session` is blocked on a lock (a row or gap another transaction holds), as the server itself shows
 * it: `pg_stat_activity` on PostgreSQL, `information_schema.INNODB_TRX` on MariaDB/MySQL (read every 150–300 ms, so
 * its cached snapshot is refreshed). A statement is found by text in its first 1,024 characters (what both servers
 * keep of it by default), so pass text that is there and in no other session's statement. `admin` is any other
 * DataSource on the same server. Pass the call that should block as `call`: if it settles before it ever blocked, the
 * wait stops at once and says how it settled. A wait that times out names what the server says the session was doing.
 *
 * @example
 * const write = recorder.recordDecisions(records);
 * await whenBlocked(dataSource, { statementContaining: records[0].id }, write);
 */
export async function whenBlocked(admin: DataSource, session: BlockedSession, call?: Promise<unknown>): Promise<void> {
  const postgres = admin.options.type === 'postgres';
  const byId = 'connectionId' in session;
  const value = byId ? session.connectionId : session.statementContaining;
  /** `column` holds the session's id, or a statement with the text in it (found as it is: no LIKE wildcards). */
  const matches = (column: string) =>
    byId ? `${column} = ${postgres ? '$1' : '?'}` : postgres ? `strpos(${column}, $1) > 0` : `INSTR(${column}, ?) > 0`;
  const blocked = postgres
    ? `SELECT 1 FROM pg_stat_activity WHERE ${matches(byId ? 'pid' : 'query')} AND wait_event_type = 'Lock'`
    : `SELECT 1 FROM information_schema.INNODB_TRX WHERE ${matches(byId ? 'trx_mysql_thread_id' : 'trx_query')} AND trx_state = 'LOCK WAIT'`;
  let settled: string | undefined;
  void call?.then(
    (result) => (settled = `resolved with ${JSON.stringify(result)}`),
    (error) => (settled = `rejected with "${error instanceof Error ? error.message : String(error)}"`),
  );
  const deadline = Date.now() + WAIT_TIMEOUT_MS;
  while ((await admin.query(blocked, [value])).length === 0) {
    if (settled !== undefined)
      throw new Error(`The call of ${describe(session)} ${settled} before it blocked on a lock.`);
    if (Date.now() > deadline) {
      const activity = await admin.query(
        postgres
          ? `SELECT state, wait_event_type, wait_event, query FROM pg_stat_activity WHERE ${matches(byId ? 'pid' : 'query')}`
          : `SELECT COMMAND, STATE, TIME, INFO FROM information_schema.PROCESSLIST WHERE ${matches(byId ? 'ID' : 'INFO')} AND ID <> CONNECTION_ID()`,
        [value],
      );
      throw new Error(
        `${describe(session)} never blocked on a lock within ${WAIT_TIMEOUT_MS} ms; the server shows ${JSON.stringify(activity)}.`,
      );
    }
    // Jittered: two pollers of one server in step would keep each other's reads under 100 ms apart.
    if (!postgres) await setTimeout(INNODB_TRX_IDLE_MS * (1 + Math.random()));
  }
}

function describe(session: BlockedSession): string {
  return 'connectionId' in session
    ? `Connection ${session.connectionId}`
    : `The statement containing "${session.statementContaining}"`;
}

/**
 * Waits until server connection `connectionId` is blocked on a lock ({@link whenBlocked}), then kills it:
 * `pg_terminate_backend` on PostgreSQL, `KILL CONNECTION` on MariaDB/MySQL. `admin` is any other DataSource on the
 * same server. The kill lands while the statement is in flight, never before it was sent. Pass the blocked call as
 * `call`: if it settles before it ever blocked, the wait stops at once and says how it settled.
 */
export async function killWhenBlocked(admin: DataSource, connectionId: number, call?: Promise<unknown>): Promise<void> {
  await whenBlocked(admin, { connectionId }, call);
  const postgres = admin.options.type === 'postgres';
  await admin.query(
    postgres ? 'SELECT pg_terminate_backend($1)' : `KILL CONNECTION ${Number(connectionId)}`,
    postgres ? [connectionId] : [],
  );
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

/** The steps of {@link expectKilledMidStatement}; `T` is whatever `arrange` hands to the later steps. */
export interface KilledMidStatementSteps<T> {
  /** Builds the store on the pinned DataSource (and any rows the call needs), before the blocker opens its transaction. */
  readonly arrange: (pinned: DataSource) => Promise<T> | T;
  /** Inside the blocker's open transaction: takes the row lock the gate call will wait on. */
  readonly block: (blocker: QueryRunner, arranged: T) => Promise<unknown>;
  /** Starts the gate call that blocks on that lock and has its connection killed. */
  readonly act: (arranged: T) => Promise<unknown>;
  /** After the blocker rolled back: checks that nothing was written and that the next call works. */
  readonly verify: (arranged: T) => Promise<void>;
}

/**
 * The killed-connection choreography for a store on PostgreSQL or MariaDB/MySQL: pins a single
 * connection ({@link openSingleConnection}), holds a blocking row in a transaction on another
 * connection, starts `act`, kills the pinned connection once it blocks ({@link killWhenBlocked}),
 * expects `act` to reject with the driver's error (`/terminat/` on PostgreSQL,
 * `/killed|Connection lost|closed/` on MariaDB/MySQL), rolls the blocker back, then runs `verify`.
 * Wrap `verify`'s first read in {@link onceReconnected}.
 *
 * @example
 * await expectKilledMidStatement(dataSource, {
 *   arrange: (pinned) => ({ store: new TypeOrmRateLimitStore(pinned), request: unit() }),
 *   block: (blocker, { request }) => blocker.manager.insert(RateLimitWindowEntity, rowFor(request)),
 *   act: ({ store, request }) => store.consume(request),
 *   verify: async ({ store, request }) => expect(await onceReconnected(() => store.consume(request))).toMatchObject({ count: 1 }),
 * });
 */
export async function expectKilledMidStatement<T>(
  dataSource: DataSource,
  steps: KilledMidStatementSteps<T>,
): Promise<void> {
  const { dataSource: pinned, connectionId } = await openSingleConnection(dataSource);
  const blocker = dataSource.createQueryRunner();
  try {
    const arranged = await steps.arrange(pinned);
    await blocker.startTransaction();
    await steps.block(blocker, arranged);

    const call = steps.act(arranged).then(
      (value: unknown) => ({ rejected: false, value }) as const,
      (error: unknown) => ({ rejected: true, error }) as const,
    );
    await killWhenBlocked(dataSource, connectionId, call);
    const outcome = await call;
    // The same check as `expect(call).rejects.toThrow(driverError)`, without Jest: this module also runs in workers and benches.
    const driverError = dataSource.options.type === 'postgres' ? /terminat/ : /killed|Connection lost|closed/;
    if (!outcome.rejected)
      throw new Error(
        `The call resolved (${JSON.stringify(outcome.value)}); expected it to reject with ${driverError}.`,
      );
    const message = outcome.error instanceof Error ? outcome.error.message : String(outcome.error);
    if (!driverError.test(message))
      throw new Error(`The call rejected with "${message}"; expected ${driverError}.`, { cause: outcome.error });
    await blocker.rollbackTransaction();

    await steps.verify(arranged);
  } finally {
    if (blocker.isTransactionActive) await blocker.rollbackTransaction();
    await blocker.release();
    await pinned.destroy();
  }
}
