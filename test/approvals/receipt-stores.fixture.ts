import { type ApprovalReceiptStore, InMemoryApprovalReceiptStore } from '@verdict/nestjs';
import { TypeOrmApprovalReceiptStore, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, dropDataSource, openDataSource } from '@verdict/testing-kit';

/** An opened receipt store backend: `store()` hands out a store on it (in memory: a fresh one each time). */
export interface ReceiptStoreBackend {
  store(): ApprovalReceiptStore;
  close(): Promise<void>;
}

/**
 * Every receipt store to run a pipeline spec on, as `describe.each` rows: memory, and TypeORM on each
 * engine of the database matrix (one migrated database per engine, shared by the rows' tests).
 *
 * @example
 * describe.each(receiptStoreBackends())('… [%s]', (_engine, open) => { beforeAll(async () => (backend = await open())); … });
 */
export function receiptStoreBackends(): Array<[string, () => Promise<ReceiptStoreBackend>]> {
  return [
    ['memory', async () => ({ store: () => new InMemoryApprovalReceiptStore(), close: async () => {} })],
    ...databaseEngines().map((engine): [string, () => Promise<ReceiptStoreBackend>] => [
      engine.name,
      async () => {
        const dataSource = await openDataSource(engine, { entities: verdictEntities, migrations: verdictMigrations });
        return { store: () => new TypeOrmApprovalReceiptStore(dataSource), close: () => dropDataSource(dataSource) };
      },
    ]),
  ];
}
