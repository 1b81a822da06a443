import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { type DataSource, QueryFailedError } from 'typeorm';
import { withNamedLock } from '../../packages/verdict/src/typeorm/named-lock.js';
import { openTransactions, otherConnection, serverEngines, withOneConnection } from './one-connection.fixture.js';

// The lock every seal and receipt issue holds (PostgreSQL: a transaction that takes an advisory lock in its first
// round trip; MySQL/MariaDB: GET_LOCK). On one pooled connection, so what a locked section leaves behind is what the
// next statement meets.
for (const engine of serverEngines()) {
  const dialect = engine.name === 'postgres' ? 'postgres' : 'mysql';
  const name = () => randomUUID().replaceAll('-', '');

  describe(`withNamedLock [${engine.name}]`, () => {
    it("commits the section's writes and frees the lock for the next holder", async () => {
      await withOneConnection(engine, async (dataSource) => {
        const lock = name();
        await dataSource.query('CREATE TABLE lock_notes (id varchar(64) PRIMARY KEY)');
        const answer = await withNamedLock(dataSource, dialect, lock, async (query) => {
          await query(`INSERT INTO lock_notes (id) VALUES (${engine.name === 'postgres' ? '$1' : '?'})`, ['kept']);
          return 'done';
        });

        expect(answer).toBe('done');
        expect(await dataSource.query('SELECT id FROM lock_notes')).toEqual([{ id: 'kept' }]);
        expect(await withNamedLock(dataSource, dialect, lock, async () => 'again')).toBe('again');
        expect(await openTransactions(dataSource, dialect)).toBe(0);
      });
    });

    it('rolls a failed section back, rethrows its own error and leaves the connection outside any transaction', async () => {
      await withOneConnection(engine, async (dataSource) => {
        const lock = name();
        await dataSource.query('CREATE TABLE lock_notes (id varchar(64) PRIMARY KEY)');
        const failure = new Error('the work failed');

        const section = withNamedLock(dataSource, dialect, lock, async (query) => {
          await query(`INSERT INTO lock_notes (id) VALUES (${engine.name === 'postgres' ? '$1' : '?'})`, ['undone']);
          throw failure;
        });

        await expect(section).rejects.toBe(failure);
        // PostgreSQL rolled the insert back; MySQL/MariaDB's statements autocommit under GET_LOCK, as documented.
        expect(await dataSource.query('SELECT id FROM lock_notes')).toEqual(
          engine.name === 'postgres' ? [] : [{ id: 'undone' }],
        );
        expect(await openTransactions(dataSource, dialect)).toBe(0);
        expect(await withNamedLock(dataSource, dialect, lock, async () => 'free')).toBe('free');
      });
    });

    it('fails a section whose statement fails as QueryFailedError, and the next section runs', async () => {
      await withOneConnection(engine, async (dataSource) => {
        const lock = name();
        const section = withNamedLock(dataSource, dialect, lock, (query) => query('SELECT * FROM no_such_table', []));

        await expect(section).rejects.toBeInstanceOf(QueryFailedError);
        expect(await openTransactions(dataSource, dialect)).toBe(0);
        expect(await withNamedLock(dataSource, dialect, lock, async (query) => query('SELECT 1 AS one', []))).toEqual([
          { one: 1 },
        ]);
      });
    });

    it('lets one holder of a name in at a time: the second waits until the first is done', async () => {
      await withOneConnection(engine, async (dataSource) => {
        const lock = name();
        const other = await otherConnection(dataSource);
        const entered: string[] = [];
        let finish!: () => void;
        const holding = new Promise<void>((resolve) => (finish = resolve));
        let held!: () => void;
        const isHeld = new Promise<void>((resolve) => (held = resolve));
        const first = withNamedLock(dataSource, dialect, lock, async () => {
          entered.push('first');
          held();
          await holding;
          entered.push('first done');
        });
        await isHeld;
        const second = withNamedLock(other, dialect, lock, async () => void entered.push('second'));
        // The second holder's session is seen waiting on the lock before the first lets go.
        const observer = await otherConnection(dataSource);
        while (!(await waitingOnLock(observer, dialect))) await new Promise((resolve) => setImmediate(resolve));
        expect(entered).toEqual(['first']);

        finish();
        await Promise.all([first, second]);
        expect(entered).toEqual(['first', 'first done', 'second']);
      });
    });

    it('takes several names in order: a holder of any of them makes the section wait, and all are freed after it', async () => {
      await withOneConnection(engine, async (dataSource) => {
        const [principal, call] = [name(), name()];
        const other = await otherConnection(dataSource);
        const entered: string[] = [];
        let finish!: () => void;
        const holding = new Promise<void>((resolve) => (finish = resolve));
        let held!: () => void;
        const isHeld = new Promise<void>((resolve) => (held = resolve));
        // Another principal's issue under the same tool call: only the second name is shared.
        const first = withNamedLock(dataSource, dialect, [name(), call], async () => {
          entered.push('first');
          held();
          await holding;
          entered.push('first done');
        });
        await isHeld;
        const second = withNamedLock(other, dialect, [principal, call], async () => void entered.push('second'));
        const observer = await otherConnection(dataSource);
        while (!(await waitingOnLock(observer, dialect))) await new Promise((resolve) => setImmediate(resolve));
        expect(entered).toEqual(['first']);

        finish();
        await Promise.all([first, second]);
        expect(entered).toEqual(['first', 'first done', 'second']);
        // Every name is free again, from another connection too (MySQL/MariaDB: each GET_LOCK was released).
        expect(await withNamedLock(observer, dialect, [call, principal], async () => 'free')).toBe('free');
        expect(await openTransactions(dataSource, dialect)).toBe(0);
      });
    });

    if (engine.name === 'postgres') {
      it('drops a connection that died inside the section: the section fails and the pool opens another', async () => {
        await withOneConnection(engine, async (dataSource) => {
          const section = withNamedLock(dataSource, dialect, name(), async (query) => {
            const [{ pid }] = await query('SELECT pg_backend_pid() AS pid', []);
            await (await otherConnection(dataSource)).query('SELECT pg_terminate_backend($1)', [pid]);
            return query('SELECT 1', []);
          });

          // Which error depends on whether the server's goodbye arrived before the next statement was sent.
          await expect(section).rejects.toThrow(
            expect.objectContaining({
              name: expect.stringMatching(/^(QueryFailedError|QueryRunnerAlreadyReleasedError)$/),
            }),
          );
          expect(await dataSource.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
          expect(await openTransactions(dataSource, dialect)).toBe(0);
        });
      });
    }
  });
}

/** Whether some session waits for a Verdict named lock (PostgreSQL advisory lock, MySQL/MariaDB GET_LOCK). */
async function waitingOnLock(dataSource: DataSource, dialect: 'postgres' | 'mysql'): Promise<boolean> {
  const [{ waiting }] = await dataSource.query(
    dialect === 'postgres'
      ? "SELECT count(*)::int AS waiting FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
      : "SELECT COUNT(*) AS waiting FROM information_schema.processlist WHERE state = 'User lock'",
  );
  return Number(waiting) > 0;
}
