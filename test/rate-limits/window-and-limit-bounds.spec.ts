import { describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { createMongoAbility } from '@casl/ability';
import {
  InMemoryBudgetStore,
  InMemoryRateLimitStore,
  type RateLimitStore,
  VerdictConfigurationError,
  VerdictModule,
  defineCapability,
} from '@verdict/nestjs';
import { TypeOrmRateLimitStore, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, withDataSource } from '@verdict/testing-kit';
import { bootPing, pingCapability } from './ping.fixture.js';

/**
 * docs/execution-claims-and-rate-limits.md: a window is pruned once it has ended. A window so long that its end is past
 * the year 9999 cannot be stored alike on every engine (SQLite compared its five-digit year as text and pruned a window
 * that still held; MariaDB refused every call), and a limit past a 32-bit count failed every call on PostgreSQL: both
 * are refused at boot. The longest window is 100 years, the highest limit 2,147,483,647.
 */
const HUNDRED_YEARS = 3_155_760_000;

async function boot(limit: number, windowSeconds: number, rateLimits: RateLimitStore = new InMemoryRateLimitStore()) {
  const { moduleRef, ping } = await bootPing({ limit, windowSeconds, reason: 'ping budget' }, rateLimits);
  const call = async () => (await ping()).decision.disposition;
  return { moduleRef, call };
}

describe('rate-limit windows and limits every engine can store', () => {
  it.each([
    ['a window whose end is past the year 9999', 1, 300_000_000_000],
    ['a window one second longer than 100 years', 1, HUNDRED_YEARS + 1],
    ['a limit past a 32-bit count', 2 ** 31, 3600],
  ])('attack: %s is refused at boot', async (_case, limit, windowSeconds) => {
    await expect(boot(limit, windowSeconds)).rejects.toThrow(VerdictConfigurationError);
  });

  it.each([['a spend budget', { budget: { amountOf: () => 1, limit: 10, per: 'tenant', window: HUNDRED_YEARS + 1 } }]])(
    'attack: %s whose window is longer than 100 years is refused at boot',
    async (_case, gate) => {
      const capability = defineCapability(
        { ...pingCapability({ reason: 'ping budget' }), rateLimit: undefined, ...gate } as never,
        () => 'pinged',
      );
      const booting = (async () => {
        const moduleRef = await Test.createTestingModule({
          imports: [
            VerdictModule.forRoot({
              abilityFactory: { createForContext: () => createMongoAbility([{ action: 'read', subject: 'all' }]) },
              budgets: new InMemoryBudgetStore(),
              capabilities: [capability],
            }),
          ],
        }).compile();
        await moduleRef.init();
      })();
      await expect(booting).rejects.toThrow(/100 years/);
    },
  );

  for (const engine of databaseEngines())
    it(`control [${engine.name}]: a 100-year window holds its count, and pruning leaves it; the highest limit permits`, async () => {
      await withDataSource(engine, { entities: verdictEntities, migrations: verdictMigrations }, async (dataSource) => {
        const store = new TypeOrmRateLimitStore(dataSource);
        const once = await boot(1, HUNDRED_YEARS, store);
        expect(await once.call()).toBe('permit');
        expect(await once.call()).toBe('throttle');
        expect(await store.prune(new Date())).toBe(0);
        expect(await once.call()).toBe('throttle');
        await once.moduleRef.close();

        const most = await boot(2_147_483_647, 3600, store);
        expect(await most.call()).toBe('permit');
        await most.moduleRef.close();
      });
    });
});
