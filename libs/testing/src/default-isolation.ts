import { DataSource } from 'typeorm';

/**
 * A new DataSource on `dataSource`'s PostgreSQL database whose connections open at `isolation` by default
 * (`default_transaction_isolation`, through the libpq `options` that `openDataSource` already sets): the setting some
 * teams give their whole database (ADR 0176). Nothing else changes; hand it to workers, or initialize it.
 *
 * @example
 * const workers = await startGateWorkers({ count: 8, dataSource: withDefaultIsolation(dataSource, 'serializable') });
 */
export function withDefaultIsolation(dataSource: DataSource, isolation: string): DataSource {
  const options = dataSource.options as { extra: { options: string } };
  return new DataSource({
    ...dataSource.options,
    extra: {
      ...options.extra,
      options: `${options.extra.options} -c default_transaction_isolation=${isolation.replace(' ', '\\ ')}`,
    },
  } as typeof dataSource.options);
}
