import { describe, expect, it } from '@jest/globals';
import type { DataSource, QueryRunner } from 'typeorm';
import { VerdictConfigurationError } from '@verdict/nestjs';
import { inOwnTransaction } from '../../packages/verdict/src/typeorm/own-transaction.js';
import {
  failing,
  sent,
  openTransactions,
  otherConnection,
  serverEngines,
  sessionId,
  withOneConnection,
} from './one-connection.fixture.js';

// The transaction every locked section and batch approval decision opens, on a DataSource of one pooled connection:
// what a section leaves behind is what the next statement meets.
for (const engine of serverEngines()) {
  const dialect = engine.name === 'postgres' ? 'postgres' : 'mysql';
  const insert = (id: string) => `INSERT INTO notes (id) VALUES ('${id}')`;
  const notes = async (on: DataSource | QueryRunner) =>
    ((await on.query('SELECT id FROM notes ORDER BY id')) as Array<{ id: string }>).map(({ id }) => id);

  /** Runs `work` in a transaction of its own on a runner of `dataSource`, released afterwards. */
  async function section<T>(
    dataSource: DataSource,
    work: (runner: QueryRunner) => Promise<T>,
    alongBegin?: string,
  ): Promise<T> {
    const runner = dataSource.createQueryRunner('master');
    try {
      return await inOwnTransaction(runner, dialect, () => work(runner), alongBegin);
    } finally {
      await runner.release();
    }
  }

  describe(`inOwnTransaction [${engine.name}]`, () => {
    it('commits the work and the statement sent with the begin, reading what others commit meanwhile (READ COMMITTED)', async () => {
      await withOneConnection(engine, async (dataSource) => {
        await dataSource.query('CREATE TABLE notes (id varchar(64) PRIMARY KEY)');
        const outside = await otherConnection(dataSource);
        sent.length = 0;

        const seen = await section(
          dataSource,
          async (runner) => {
            await runner.query(insert('work'));
            // Uncommitted until the section ends: another session does not see either row yet.
            expect(await notes(outside)).toEqual([]);
            const before = await notes(runner);
            await outside.query(insert('outside'));
            return { before, after: await notes(runner) };
          },
          insert('begun'),
        );

        // PostgreSQL begins with the statement sent along in one message (one round trip).
        expect(sent.slice(0, dialect === 'postgres' ? 1 : 3)).toEqual(
          dialect === 'postgres'
            ? [`START TRANSACTION ISOLATION LEVEL READ COMMITTED; ${insert('begun')}`]
            : ['SET TRANSACTION ISOLATION LEVEL READ COMMITTED', 'START TRANSACTION', insert('begun')],
        );
        expect(sent.at(-1)).toBe('COMMIT');
        // A second read in the same transaction sees a row committed after the first: not a snapshot of the first.
        expect(seen).toEqual({ before: ['begun', 'work'], after: ['begun', 'outside', 'work'] });
        expect(await notes(outside)).toEqual(['begun', 'outside', 'work']);
        expect(await openTransactions(dataSource, dialect)).toBe(0);
      });
    });

    it('rolls back the work and the statement sent with the begin when the work throws, and rethrows its error', async () => {
      await withOneConnection(engine, async (dataSource) => {
        await dataSource.query('CREATE TABLE notes (id varchar(64) PRIMARY KEY)');
        const failure = new Error('the work failed');

        const failed = section(
          dataSource,
          async (runner) => {
            await runner.query(insert('work'));
            throw failure;
          },
          insert('begun'),
        );

        await expect(failed).rejects.toBe(failure);
        expect(await notes(dataSource)).toEqual([]);
        expect(await openTransactions(dataSource, dialect)).toBe(0);
      });
    });

    it('rolls back when COMMIT fails, rethrows that failure and keeps the connection', async () => {
      await withOneConnection(engine, async (dataSource) => {
        await dataSource.query('CREATE TABLE notes (id varchar(64) PRIMARY KEY)');
        const before = await sessionId(dataSource, dialect);
        failing.statement = 'COMMIT';

        const failed = section(dataSource, (runner) => runner.query(insert('work')));

        await expect(failed).rejects.toThrow('COMMIT failed');
        failing.statement = undefined;
        expect(await notes(dataSource)).toEqual([]);
        expect(await openTransactions(dataSource, dialect)).toBe(0);
        expect(await sessionId(dataSource, dialect)).toBe(before);
      });
    });

    it('drops a connection whose ROLLBACK failed instead of lending it out inside the transaction', async () => {
      await withOneConnection(engine, async (dataSource) => {
        await dataSource.query('CREATE TABLE notes (id varchar(64) PRIMARY KEY)');
        const failure = new Error('the work failed');
        let inside: number | undefined;
        failing.statement = 'ROLLBACK';

        const failed = section(dataSource, async (runner) => {
          await runner.query(insert('work'));
          inside = await sessionId(runner, dialect);
          throw failure;
        });

        await expect(failed).rejects.toBe(failure);
        failing.statement = undefined;
        expect(inside).toEqual(expect.any(Number));
        expect(await sessionId(dataSource, dialect)).not.toBe(inside);
        expect(await openTransactions(dataSource, dialect)).toBe(0);
        // The dropped session's transaction ended with it: its row was never committed.
        expect(await notes(dataSource)).toEqual([]);
      });
    });

    if (dialect === 'postgres')
      it('opens no transaction on a TypeORM whose query runner cannot drop a broken connection', async () => {
        await withOneConnection(engine, async (dataSource) => {
          const runner = dataSource.createQueryRunner('master');
          Object.assign(runner, { releasePostgresConnection: undefined });
          let ran = false;
          try {
            await expect(
              inOwnTransaction(runner, dialect, async () => {
                ran = true;
              }),
            ).rejects.toBeInstanceOf(VerdictConfigurationError);
          } finally {
            // TypeORM's own release calls the hook: the prototype's is back before it does.
            delete (runner as { releasePostgresConnection?: unknown }).releasePostgresConnection;
            await runner.release();
          }
          expect(ran).toBe(false);
          expect(await openTransactions(dataSource, dialect)).toBe(0);
        });
      });
  });
}
