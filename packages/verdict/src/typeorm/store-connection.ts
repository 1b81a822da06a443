import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { QueryFailedError } from 'typeorm';
import type { DataSource } from 'typeorm';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { OuterTransactionError } from '../errors/outer-transaction.error.js';
import { isSerializationFailure } from './deadlock-retry.js';
import { inOwnTransaction } from './own-transaction.js';
import { usesUnnamedStatements } from './unnamed-statements.js';

/** The SQL dialects Verdict's stores write. */
export type SqlDialect = 'postgres' | 'sqlite' | 'mysql';

/** What one statement did. */
export interface StatementResult {
  /** Rows a `RETURNING` clause produced (PostgreSQL, SQLite). */
  readonly rows: Array<Record<string, unknown>>;
  /** Rows changed; on MySQL/MariaDB rows *matched*, because mysql2 connects with CLIENT_FOUND_ROWS. */
  readonly affected: number;
  /** MySQL/MariaDB only: the OK packet's insert id, which `LAST_INSERT_ID(expr)` sets. 0 elsewhere. */
  readonly insertId: number;
}

/** One statement of a transaction: its SQL and parameters. */
export type Statement = readonly [sql: string, parameters: readonly unknown[]];

/**
 * The statements of one transaction, as a generator: it yields each statement, receives its result, and returns
 * the transaction's answer. Written once, it runs synchronously on better-sqlite3 and awaited elsewhere.
 */
export type TransactionSteps<T> = Generator<Statement, T, StatementResult>;

/** better-sqlite3's native database handle, as far as the stores use it. */
interface NativeSqlite {
  readonly inTransaction: boolean;
  prepare(sql: string): NativeStatement;
}

interface NativeStatement {
  readonly reader: boolean;
  all(...parameters: unknown[]): Array<Record<string, unknown>>;
  run(...parameters: unknown[]): { changes: number };
}

const statements = new WeakMap<NativeSqlite, Map<string, NativeStatement>>();

/** The pool of TypeORM's PostgreSQL driver (`pg.Pool`), as far as the stores use it. */
interface PgPool {
  query(config: { name: string | undefined; text: string; values: unknown[] }): Promise<{
    rows?: Array<Record<string, unknown>>;
    rowCount?: number | null;
  }>;
}

/** A connection of TypeORM's MySQL/MariaDB driver (mysql2), as far as the stores use it. */
interface MysqlConnection {
  query(
    sql: string | { sql: string; timeout: number },
    parameters: unknown[],
    callback: (error: Error | null, result: unknown) => void,
  ): void;
  release(): void;
}

/**
 * How many statement texts the stores on one DataSource send as named prepared statements on PostgreSQL (ADR 0113,
 * ADR 0120): each is prepared on every pooled connection for the connection's life. The stores' fixed statements
 * are far fewer; a statement whose text varies with a batch's size is sent unnamed (`write(..., { named: false })`),
 * and past the bound any further text is sent unnamed too, as TypeORM sends its own.
 */
export const NAMED_STATEMENTS_PER_DATA_SOURCE = 256;

/** The prepared-statement name of each statement text named so far, per DataSource. */
const statementNames = new WeakMap<DataSource, Map<string, string>>();

/**
 * How Verdict's TypeORM stores run their one-statement gates, per engine, without ever joining an outer
 * application transaction:
 * - PostgreSQL, MySQL/MariaDB: each statement takes a pooled connection of its own and autocommits, so
 *   it never runs inside a transaction the application opened on another pooled connection. It goes to
 *   the driver's pool directly, logged through the DataSource's logger and failing as `QueryFailedError`
 *   as TypeORM's query runner would, without a query runner per statement (ADR 0113); on PostgreSQL as a
 *   named prepared statement, parsed and planned once per pooled connection, unless the DataSource was given to
 *   {@link useUnnamedStatements} (a transaction-pooling PgBouncer): then unnamed, as TypeORM sends its own.
 *   The statements are written for READ COMMITTED, PostgreSQL's default. Under a database default of
 *   REPEATABLE READ or SERIALIZABLE, PostgreSQL refuses a statement whose row a concurrent one changed first
 *   (SQLSTATE `40001`) and rolls it back entirely: it is sent once more, in a READ COMMITTED transaction of its
 *   own, where PostgreSQL re-checks the changed row instead (ADR 0176).
 * - better-sqlite3: TypeORM shares one connection, so a transaction the application opened would swallow
 *   the write. The statement runs on the driver's native handle, synchronously, right after checking its
 *   `inTransaction` flag: no other statement of this process can begin a transaction in between, and an
 *   open one fails closed with {@link OuterTransactionError}.
 */
export class StoreConnection {
  readonly dialect: SqlDialect;

  constructor(
    private readonly dataSource: DataSource,
    store: string,
  ) {
    this.dialect = dialectOf(dataSource.options.type, store);
    checkUtcTimezone(dataSource, store);
  }

  /** The placeholder of the `index`th parameter (1-based): `$n` on PostgreSQL, `?` elsewhere. */
  param(index: number): string {
    return this.dialect === 'postgres' ? `$${index}` : '?';
  }

  /** `date` in the form this engine's driver binds a UTC instant column. */
  instant(date: Date): Date | string {
    // SQLite: TypeORM's own UTC text form for `datetime` columns, 'YYYY-MM-DD HH:MM:SS.SSS'.
    return this.dialect === 'sqlite' ? date.toISOString().slice(0, 23).replace('T', ' ') : date;
  }

  /**
   * Runs one autocommitted statement for `gate`. A database failure rejects as TypeORM's
   * `QueryFailedError` on every engine (never as a refusal); an open transaction on better-sqlite3's
   * shared connection rejects with `OuterTransactionError` before anything is written.
   */
  async write(
    gate: string,
    sql: string,
    parameters: readonly unknown[],
    { named = true }: { readonly named?: boolean } = {},
  ): Promise<StatementResult> {
    if (this.dialect === 'sqlite') return this.writeSqlite(gate, sql, parameters);
    return this.autocommitted(gate, sql, [...parameters], named);
  }

  /**
   * The rows of one read, on a pooled connection of its own (PostgreSQL, MySQL/MariaDB: as `write`);
   * on better-sqlite3 through the DataSource, so a read inside an application transaction sees its writes.
   */
  async read(sql: string, parameters: readonly unknown[]): Promise<Array<Record<string, unknown>>> {
    if (this.dialect === 'sqlite') return this.dataSource.query(sql, [...parameters]);
    return (await this.pooled(sql, [...parameters])).rows;
  }

  /**
   * One autocommitted write on the pool; on PostgreSQL, a statement refused as not serializable (rolled back
   * entirely, so nothing was written) is sent once more in a READ COMMITTED transaction of its own (ADR 0176).
   * Any other failure, and a failure of that second send, rejects as it came. Reads are sent as they are: a lone
   * SELECT conflicts with no concurrent write under REPEATABLE READ.
   */
  private async autocommitted(
    gate: string,
    sql: string,
    parameters: unknown[],
    named = true,
  ): Promise<StatementResult> {
    try {
      return await this.pooled(sql, parameters, named);
    } catch (error) {
      if (this.dialect !== 'postgres' || !isSerializationFailure(error)) throw error;
      return this.transaction(gate, statementAlone([sql, parameters]));
    }
  }

  /**
   * One autocommitted statement on the driver's pool (named on PostgreSQL unless `named` is false); a replicated
   * MySQL/MariaDB DataSource (no single pool) goes through a query runner.
   */
  private async pooled(sql: string, parameters: unknown[], named = true): Promise<StatementResult> {
    const driver = this.dataSource.driver as unknown as {
      master?: PgPool;
      pool?: unknown;
      obtainMasterConnection(): Promise<MysqlConnection>;
    };
    const pool = this.dialect === 'postgres' ? driver.master : driver.pool;
    if (pool === undefined) return this.onQueryRunner(sql, parameters);
    const { logger } = this.dataSource;
    logger.logQuery(sql, parameters);
    try {
      if (this.dialect === 'postgres') {
        // Timed from the pool's checkout: `pg.Pool.query` takes a connection and sends in one call.
        const started = performance.now();
        const name = named && !usesUnnamedStatements(this.dataSource) ? this.statementName(sql) : undefined;
        const result = await (pool as PgPool).query({ name, text: sql, values: parameters });
        this.reportSlow(started, sql, parameters);
        return { rows: result.rows ?? [], affected: result.rowCount ?? 0, insertId: 0 };
      }
      const connection = await driver.obtainMasterConnection();
      try {
        const { enableQueryTimeout, maxQueryExecutionTime } = this.dataSource.options as {
          enableQueryTimeout?: boolean;
          maxQueryExecutionTime?: number;
        };
        // As TypeORM's MySQL query runner: the statement times out past maxQueryExecutionTime when asked to.
        const query = enableQueryTimeout && maxQueryExecutionTime ? { sql, timeout: maxQueryExecutionTime } : sql;
        const started = performance.now();
        // The callback form: no promise wrapper built around the connection per statement.
        const raw = await new Promise<unknown>((resolve, reject) =>
          connection.query(query, parameters, (error, result) => (error ? reject(error) : resolve(result))),
        );
        this.reportSlow(started, sql, parameters);
        const header = raw as { affectedRows?: number; insertId?: number };
        return Array.isArray(raw)
          ? { rows: raw as Array<Record<string, unknown>>, affected: 0, insertId: 0 }
          : { rows: [], affected: header.affectedRows ?? 0, insertId: Number(header.insertId ?? 0) };
      } finally {
        connection.release();
      }
    } catch (error) {
      logger.logQueryError(error as Error, sql, parameters);
      // As TypeORM reports every driver's failure, so callers see one error type on every engine.
      throw new QueryFailedError(sql, parameters, error as Error);
    }
  }

  /** As TypeORM's query runners do: a statement slower than the DataSource's `maxQueryExecutionTime` is logged as slow. */
  private reportSlow(started: number, sql: string, parameters: unknown[]): void {
    const { maxQueryExecutionTime } = this.dataSource.options;
    const time = performance.now() - started;
    if (maxQueryExecutionTime && time > maxQueryExecutionTime)
      this.dataSource.logger.logQuerySlow(time, sql, parameters);
  }

  /** The name `sql` is prepared under; `undefined` (sent unnamed) once the DataSource's stores named as many as they may. */
  private statementName(sql: string): string | undefined {
    let names = statementNames.get(this.dataSource);
    if (names === undefined) statementNames.set(this.dataSource, (names = new Map()));
    let name = names.get(sql);
    if (name === undefined && names.size < NAMED_STATEMENTS_PER_DATA_SOURCE)
      names.set(sql, (name = `verdict_${createHash('sha256').update(sql).digest('hex').slice(0, 40)}`));
    return name;
  }

  private async onQueryRunner(sql: string, parameters: unknown[]): Promise<StatementResult> {
    const runner = this.dataSource.createQueryRunner('master');
    try {
      const result = await runner.query(sql, parameters, true);
      return {
        rows: result.records ?? [],
        affected: result.affected ?? 0,
        insertId: Number(result.raw?.insertId ?? 0),
      };
    } finally {
      await runner.release();
    }
  }

  /**
   * Runs `steps` in one transaction of its own: READ COMMITTED on a pooled connection of its own (PostgreSQL,
   * MySQL/MariaDB; `SELECT … FOR UPDATE` in the steps locks their rows), or `BEGIN IMMEDIATE` on better-sqlite3's
   * native handle with every statement run synchronously, so no other statement of this process lands inside it.
   * A throw from the steps or a database failure rolls everything back and rejects.
   */
  async transaction<T>(gate: string, steps: TransactionSteps<T>): Promise<T> {
    if (this.dialect === 'sqlite') {
      const database = this.nativeSqlite(gate);
      prepared(database, 'BEGIN IMMEDIATE').run();
      try {
        let step = steps.next();
        while (!step.done) step = steps.next(this.writeSqlite(gate, step.value[0], step.value[1], true));
        prepared(database, 'COMMIT').run();
        return step.value;
      } catch (error) {
        if (database.inTransaction) prepared(database, 'ROLLBACK').run();
        throw error;
      }
    }
    const runner = this.dataSource.createQueryRunner('master');
    try {
      return await inOwnTransaction(runner, this.dialect, async () => {
        let step = steps.next();
        while (!step.done) {
          const result = await runner.query(step.value[0], [...step.value[1]], true);
          step = steps.next({ rows: result.records ?? [], affected: result.affected ?? 0, insertId: 0 });
        }
        return step.value;
      });
    } finally {
      await runner.release();
    }
  }

  private nativeSqlite(gate: string): NativeSqlite {
    const database = (this.dataSource.driver as unknown as { databaseConnection?: NativeSqlite }).databaseConnection;
    if (!this.dataSource.isInitialized || database === undefined)
      throw new Error(`${gate} needs an initialized DataSource.`);
    // Check and statement in one synchronous step (see the class comment).
    if (database.inTransaction) throw new OuterTransactionError(gate);
    return database;
  }

  private writeSqlite(
    gate: string,
    sql: string,
    parameters: readonly unknown[],
    inOwnTransaction = false,
  ): StatementResult {
    const database = inOwnTransaction
      ? (this.dataSource.driver as unknown as { databaseConnection: NativeSqlite }).databaseConnection
      : this.nativeSqlite(gate);
    // Logged as the pooled statements are (ADR 0113): the DataSource's logger sees every statement of the stores.
    this.dataSource.logger.logQuery(sql, [...parameters]);
    try {
      const statement = prepared(database, sql);
      if (statement.reader) {
        const rows = statement.all(...parameters);
        return { rows, affected: rows.length, insertId: 0 };
      }
      return { rows: [], affected: statement.run(...parameters).changes, insertId: 0 };
    } catch (error) {
      this.dataSource.logger.logQueryError(error as Error, sql, [...parameters]);
      // As TypeORM reports every driver's failure, so callers see one error type on every engine.
      throw new QueryFailedError(sql, [...parameters], error as Error);
    }
  }
}

/** One statement as the steps of a transaction: its result is the transaction's answer. */
function* statementAlone(statement: Statement): TransactionSteps<StatementResult> {
  return yield statement;
}

function prepared(database: NativeSqlite, sql: string): NativeStatement {
  let cache = statements.get(database);
  if (cache === undefined) statements.set(database, (cache = new Map()));
  let statement = cache.get(sql);
  if (statement === undefined) cache.set(sql, (statement = database.prepare(sql)));
  return statement;
}

/** mysql2's spellings of UTC (`' 00:00'` is `'+00:00'` from a URL, where `+` reads as a space). */
const UTC_TIMEZONE = /^(?:Z|[ +-]00:00)$/;

/**
 * Refuses a MySQL/MariaDB DataSource whose mysql2 `timezone` is not UTC: Verdict's instants are `datetime(3)`, which
 * has no zone, so with `'local'` (mysql2's default when unset) or an offset each process writes and reads its own
 * wall time, and a process in another time zone reads every expiry, window and `recorded_at` hours off. TypeORM
 * hands mysql2 `extra.timezone` over `timezone` when both are set. Other engines keep their instants with a zone.
 * @throws VerdictConfigurationError naming the fix.
 */
export function checkUtcTimezone(dataSource: DataSource, store: string): void {
  const { type } = dataSource.options;
  if (type !== 'mysql' && type !== 'mariadb') return;
  const options = dataSource.options as { timezone?: unknown; extra?: { timezone?: unknown } };
  const timezone =
    options.extra !== null && typeof options.extra === 'object' && 'timezone' in options.extra
      ? options.extra.timezone
      : options.timezone;
  if (typeof timezone === 'string' && UTC_TIMEZONE.test(timezone)) return;
  const given = timezone === undefined ? "unset (mysql2's 'local')" : (JSON.stringify(timezone) ?? String(timezone));
  throw new VerdictConfigurationError(
    `${store} needs a ${type} DataSource with timezone: 'Z' (UTC), not ${given}: Verdict's datetime(3) columns have no zone, so any other timezone stores each process's local time and another process reads expiries and timestamps hours off. Add timezone: 'Z' to the DataSource options.`,
    { store, engine: type, timezone: typeof timezone === 'string' ? timezone : String(timezone) },
  );
}

function dialectOf(type: string, store: string): SqlDialect {
  switch (type) {
    case 'postgres':
      return 'postgres';
    case 'better-sqlite3':
      return 'sqlite';
    case 'mysql':
    case 'mariadb':
      return 'mysql';
    default:
      throw new VerdictConfigurationError(
        `${store} supports better-sqlite3, postgres and mysql/mariadb DataSources, not "${type}". Use its in-memory counterpart or an adapter of your own.`,
        { store, engine: type },
      );
  }
}
