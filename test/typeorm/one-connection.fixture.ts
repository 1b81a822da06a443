import { type BeforeQueryEvent, DataSource, type EntitySubscriberInterface, type QueryRunner } from 'typeorm';
import { databaseEngines, withDataSource } from '@verdict/testing-kit';

/** A server engine of the tests: PostgreSQL or MySQL/MariaDB. */
export type ServerEngine = ReturnType<typeof databaseEngines>[number];

/** The server engines the tests run on (SQLite has no pool). */
export function serverEngines(): ServerEngine[] {
  return databaseEngines().filter(({ name }) => name !== 'sqlite');
}

/** While `statement` is set, that statement fails before it reaches the server (the connection stays as it was). */
export const failing: { statement?: 'ROLLBACK' | 'COMMIT' } = {};
/** The statements the test's DataSource sent through TypeORM's query runners, in order; a test clears it. */
export const sent: string[] = [];
class StatementHooks implements EntitySubscriberInterface {
  beforeQuery(event: BeforeQueryEvent): void {
    sent.push(event.query);
    if (failing.statement === event.query) throw new Error(`${event.query} failed`);
  }
}

/**
 * Whether the DataSource's only pooled connection is inside a transaction (PostgreSQL: begun before this statement;
 * MariaDB: `@@in_transaction`, where `information_schema.innodb_trx` may show a cached, already committed one).
 */
export async function openTransactions(dataSource: DataSource, dialect: 'postgres' | 'mysql'): Promise<number> {
  const [{ open }] = await dataSource.query(
    dialect === 'postgres' ? 'SELECT (now() <> statement_timestamp())::int AS open' : 'SELECT @@in_transaction AS open',
  );
  return Number(open);
}

/** The server's id of the session a statement runs on (the DataSource's next pooled one, or the query runner's). */
export async function sessionId(on: DataSource | QueryRunner, dialect: 'postgres' | 'mysql'): Promise<number> {
  const [{ id }] = await on.query(
    dialect === 'postgres' ? 'SELECT pg_backend_pid() AS id' : 'SELECT CONNECTION_ID() AS id',
  );
  return Number(id);
}

/** A connection of its own, to watch or end another session from outside; destroyed with the test's DataSource. */
export async function otherConnection(dataSource: DataSource): Promise<DataSource> {
  const other = await new DataSource(onePooledConnection(dataSource.options)).initialize();
  others.push(other);
  return other;
}
const others: DataSource[] = [];

/** `options` with a pool of one connection (`poolSize` on every server driver). */
function onePooledConnection(options: DataSource['options']): DataSource['options'] {
  return { ...options, poolSize: 1 } as DataSource['options'];
}

/**
 * Runs `test` with a DataSource of one pooled connection on a schema of its own, so what one section leaves behind is
 * what the next statement meets; `failing` and `sent` apply to it.
 */
export async function withOneConnection(
  engine: ServerEngine,
  test: (dataSource: DataSource) => Promise<void>,
): Promise<void> {
  await withDataSource(engine, { entities: [], migrations: [] }, async (schema) => {
    const dataSource = await new DataSource(onePooledConnection(schema.options)).initialize();
    dataSource.subscribers.push(new StatementHooks());
    try {
      await test(dataSource);
    } finally {
      failing.statement = undefined;
      sent.length = 0;
      await dataSource.destroy();
      for (const other of others.splice(0)) await other.destroy();
    }
  });
}
