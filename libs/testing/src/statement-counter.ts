import { DataSource } from 'typeorm';
import type { Logger } from 'typeorm';

/** A DataSource that counts the statements it sends; see {@link countingStatements}. */
export interface StatementCounter {
  readonly dataSource: DataSource;
  /** Runs `action` and returns how many statements were sent while it ran. */
  during(action: () => Promise<unknown>): Promise<number>;
  /** The statements the last `during` sent, in order, with their parameters. */
  readonly sent: ReadonlyArray<{ readonly sql: string; readonly parameters: readonly unknown[] }>;
}

/**
 * A second DataSource on the same database as `dataSource` whose logger counts the statements sent
 * (no migrations run). Destroy `counter.dataSource` yourself.
 *
 * @example
 * const statements = await countingStatements(dataSource);
 * expect(await statements.during(() => store.admit(request))).toBe(1);
 */
export async function countingStatements(dataSource: DataSource): Promise<StatementCounter> {
  let count = 0;
  const sent: Array<{ sql: string; parameters: unknown[] }> = [];
  const logger: Logger = {
    logQuery: (sql, parameters) => {
      count++;
      sent.push({ sql, parameters: Array.isArray(parameters) ? [...parameters] : [] });
    },
    logQueryError: () => {},
    logQuerySlow: () => {},
    logSchemaBuild: () => {},
    logMigration: () => {},
    log: () => {},
  };
  const counted = await new DataSource({ ...dataSource.options, migrations: [], logger }).initialize();
  return {
    dataSource: counted,
    sent,
    async during(action: () => Promise<unknown>): Promise<number> {
      count = 0;
      sent.length = 0;
      await action();
      return count;
    },
  };
}
