import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { databaseEngines, withDataSource } from '../database-matrix.js';
import { whenBlocked } from './database-backends.js';

const SCHEMA = { entities: [], migrations: [] };

/** `admin`, and a promise that resolves once the server has answered the first statement sent through it. */
function watchingReads(admin: DataSource): { admin: DataSource; firstRead: Promise<void> } {
  let answered!: () => void;
  const firstRead = new Promise<void>((resolve) => (answered = resolve));
  const watched = Object.create(admin) as DataSource;
  watched.query = async (...args: Parameters<DataSource['query']>) => {
    const rows = await admin.query(...args);
    answered();
    return rows;
  };
  return { admin: watched, firstRead };
}

for (const engine of databaseEngines().filter(({ name }) => name !== 'sqlite')) {
  describe(`whenBlocked [${engine.name}]`, () => {
    it('sees a lock wait that begins after it started polling, and not one that never begins', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        await dataSource.query('CREATE TABLE blocked_rows (id int PRIMARY KEY)');
        await dataSource.query('INSERT INTO blocked_rows (id) VALUES (1)');
        const holder = dataSource.createQueryRunner();
        const waiter = dataSource.createQueryRunner();
        try {
          await holder.startTransaction();
          await holder.query('SELECT id FROM blocked_rows WHERE id = 1 FOR UPDATE');
          const token = randomUUID();

          // The poll reads the server's view first, while nothing waits yet; only then does the wait begin.
          const { admin, firstRead } = watchingReads(dataSource);
          const seen = whenBlocked(admin, { statementContaining: token });
          await firstRead;
          const blocked = waiter.query(`SELECT id, '${token}' AS token FROM blocked_rows WHERE id = 1 FOR UPDATE`);

          await seen;
          await holder.commitTransaction();
          expect(await blocked).toEqual([{ id: 1, token }]);

          // Utility control: a statement that never waits is reported as having settled, not as blocked.
          const unblocked = waiter.query(`SELECT '${randomUUID()}' AS token`);
          await expect(whenBlocked(dataSource, { statementContaining: 'never-sent' }, unblocked)).rejects.toThrow(
            /resolved with .* before it blocked on a lock/,
          );
        } finally {
          if (holder.isTransactionActive) await holder.rollbackTransaction();
          await holder.release();
          await waiter.release();
        }
      });
    });
  });
}
