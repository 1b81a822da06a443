import type { DataSource } from 'typeorm';
import { verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, dropDataSource, openDataSource } from './database-matrix.js';

/** What one row of {@link storeBackends} opens: the stores a test needs on its engine, and how to let them go. */
export type OpenedBackend<TStores extends object> = TStores & { close(): Promise<void> };

/**
 * One `describe.each` row per store engine, to answer the same input alike on each: `memory` (`inMemory()`), then
 * each engine of the database matrix, a database migrated with Verdict's own migrations handed to `typeorm`.
 */
export function storeBackends<TStores extends object>(
  inMemory: () => TStores,
  typeorm: (dataSource: DataSource) => TStores,
): Array<[string, () => Promise<OpenedBackend<TStores>>]> {
  return [
    ['memory', async () => ({ ...inMemory(), close: async () => {} })],
    ...databaseEngines().map((engine): [string, () => Promise<OpenedBackend<TStores>>] => [
      engine.name,
      async () => {
        const dataSource = await openDataSource(engine, { entities: verdictEntities, migrations: verdictMigrations });
        return { ...typeorm(dataSource), close: () => dropDataSource(dataSource) };
      },
    ]),
  ];
}
