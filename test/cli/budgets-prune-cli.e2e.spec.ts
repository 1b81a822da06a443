import { afterEach, describe, expect, it } from '@jest/globals';
import type { BudgetStore } from '@verdict/nestjs';
import { BudgetWindowEntity, TypeOrmBudgetStore, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, withDataSource } from '@verdict/testing-kit';
import type { DataSource } from 'typeorm';
import { inProcessCli } from './in-process-cli.js';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };
const HOUR = 3_600;
/** A window that ended long before any clock this test runs at, and one that ends long after. */
const ENDED = new Date(Date.UTC(2001, 0, 1));
const AHEAD = new Date(Date.UTC(2090, 0, 1));
/** A module clock between the two windows: it prunes as the wall clock does. */
const NOW = new Date(Date.UTC(2020, 5, 1, 12));

afterEach(() => {
  process.exitCode = undefined;
});

/** Writes a budget window starting at each of `starts`, one hour long. */
async function windows(store: BudgetStore, ...starts: Date[]): Promise<void> {
  for (const [index, windowStart] of starts.entries())
    await store.reserve({
      bucketFingerprint: String(index).repeat(64),
      windowStart,
      windowSeconds: HOUR,
      limit: 5,
      amount: 2,
    });
}

const windowStarts = async (dataSource: DataSource) =>
  (await dataSource.getRepository(BudgetWindowEntity).find()).map((window) => window.windowStart.getTime());

describe('operator CLI: budgets prune and the module clock', () => {
  for (const engine of databaseEngines()) {
    it(`attack: with clock: null (the default clock, as documented) it prunes the ended window [${engine.name}]`, async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const budgets = new TypeOrmBudgetStore(dataSource);
        await windows(budgets, ENDED, AHEAD);

        const result = await inProcessCli({ budgets, clock: null as never }, 'budgets', 'prune', '--json');

        expect(result).toEqual({ code: 0, stdout: '{"pruned":1}', stderr: '' });
        expect(await windowStarts(dataSource)).toEqual([AHEAD.getTime()]);
      });
    });

    it(`utility: it prunes at the module's clock when one is given, and with none [${engine.name}]`, async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const budgets = new TypeOrmBudgetStore(dataSource);
        await windows(budgets, ENDED, new Date(NOW.getTime() - 2 * HOUR * 1000), new Date(NOW.getTime() + HOUR * 1000));

        // At the module's clock: the window that ended before it goes, the one after it stays.
        expect(await inProcessCli({ budgets, clock: () => NOW }, 'budgets', 'prune', '--json')).toEqual({
          code: 0,
          stdout: '{"pruned":2}',
          stderr: '',
        });
        expect(await windowStarts(dataSource)).toEqual([NOW.getTime() + HOUR * 1000]);
        // Without a clock (the wall clock, years later): nothing left is in the past but that window.
        expect(await inProcessCli({ budgets }, 'budgets', 'prune')).toEqual({
          code: 0,
          stdout: 'pruned 1 ended budget window(s)',
          stderr: '',
        });
        expect(await windowStarts(dataSource)).toEqual([]);
      });
    });
  }

  it('fails with what to configure when the module has no budget store, clock: null or not', async () => {
    for (const clock of [null, undefined])
      expect(await inProcessCli({ clock: clock as never }, 'budgets', 'prune', '--json')).toEqual({
        code: 1,
        stdout: '',
        stderr: '{"error":"No budget store is configured: pass `budgets` to VerdictModule.forRoot."}',
      });
  });
});
