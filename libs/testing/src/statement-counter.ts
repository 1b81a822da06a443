import { DataSource } from 'typeorm';
import type { Logger } from 'typeorm';

/** A DataSource that counts the statements it sends; see {@link countingStatements}. */
export interface StatementCounter {
  readonly dataSource: DataSource;
  /** Runs `action` and returns how many statements were sent while it ran. */
  during(action: () => Promise<unknown>): Promise<number>;
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
  const logger: Logger = {
    logQuery: () => void count++,
    logQueryError: () => {},
    logQuerySlow: () => {},
    logSchemaBuild: () => {},
    logMigration: () => {},
    log: () => {},
  };
  const counted = await new DataSource({ ...dataSource.options, migrations: [], logger }).initialize();
  return {
    dataSource: counted,
    async during(action: () => Promise<unknown>): Promise<number> {
      count = 0;
      await action();
      return count;
    },
  };
}
