import { describe, expect, it } from '@jest/globals';
import { BullModule } from '@nestjs/bullmq';
import { type DynamicModule, Global, Injectable, Module, type OnApplicationShutdown, type Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import { createMongoAbility } from '@casl/ability';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import {
  ActionContextStore,
  type DeferredQueue,
  DeferredQueueClosedError,
  ExecutionTargetPolicy,
  InMemoryEvidenceRecorder,
  InMemoryExecutionClaimStore,
  InMemoryReviewItemStore,
  InProcessDeferredQueue,
  ReviewService,
  VerdictModule,
  VerdictService,
  defineCapability,
  fromContext,
  requiresReview,
} from '@verdict/nestjs';
import { BullMqDeferredQueue, VerdictBullMqModule } from '@verdict/nestjs/bullmq';
import {
  TypeOrmEvidenceQuery,
  TypeOrmEvidenceRecorder,
  TypeOrmExecutionClaimStore,
  TypeOrmReviewItemStore,
  verdictEntities,
  verdictMigrations,
} from '@verdict/nestjs/typeorm';
import { testRedisUrl, uniqueRedisPrefix } from '@verdict/testing-kit';
import { z } from 'zod';

/**
 * ADR 0207: `app.close()` while a review-lane job runs. Verdict stops taking jobs and waits for the one in flight in
 * `beforeApplicationShutdown`, which Nest runs for every module before any `onApplicationShutdown` (where
 * `TypeOrmModule` destroys its DataSource and `@nestjs/bullmq` closes its workers and connections). With the queue
 * closed in `onApplicationShutdown`, the order of the two modules in `imports` decided which went first: Verdict
 * imported before `TypeOrmModule` had its DataSource destroyed under the running job, whose executor's effect then
 * happened with no final evidence, no completed claim and no settled item.
 *
 * The executor is held until the application starts shutting down, whichever comes first: the lane's queue is asked to
 * close, or the DataSource to be destroyed. The job is in flight when `close()` is called and finishes during it.
 */

const alice = { actor: { id: 'alice' }, tenant: 'acme' };
const bob = { actor: { id: 'bob' }, tenant: 'acme' };
const ability = { createForContext: () => createMongoAbility([{ action: 'manage', subject: 'all' }]) };

/** An executor held until `openingOn`'s method is called (or `release`); `started` resolves once it runs. */
function heldExecutor() {
  let open!: () => void;
  const closing = new Promise<void>((resolve) => (open = resolve));
  let markStarted!: () => void;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const effects: string[] = [];
  const capability = defineCapability(
    {
      name: 'exports.run',
      description: 'Run an export',
      action: 'read',
      subject: 'all',
      arguments: z.object({}),
      resolveTarget: fromContext(() => ({ id: 1 })),
      executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot<{ id: number }>({
        name: 'export',
        identity: (t) => t.id,
      }),
      requiresReview: requiresReview({
        bind: () => ({}),
        reason: 'Exports are reviewed.',
        actorKey: (actor: { id: string }) => actor.id,
      }),
    },
    async () => {
      markStarted();
      await closing;
      effects.push('exported');
      return 'exported';
    },
  );
  /** Wraps `target[method]` so that calling it opens the executor first. */
  const openingOn = <T extends object>(target: T, method: keyof T & string): T => {
    const original = (target[method] as (...args: unknown[]) => Promise<unknown>).bind(target);
    Object.assign(target, {
      [method]: (...args: unknown[]) => {
        open();
        return original(...args);
      },
    });
    return target;
  };
  return { capability, started, effects, openingOn, release: () => open() };
}

/** Verdict's options over the DataSource: TypeORM evidence, claims and review items; the lane on `queue`. */
function laneOptions(held: ReturnType<typeof heldExecutor>, dataSource: DataSource, queue: DeferredQueue) {
  return {
    abilityFactory: ability,
    evidence: new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' }),
    executionClaims: new TypeOrmExecutionClaimStore(dataSource),
    capabilities: [held.capability],
    review: { items: new TypeOrmReviewItemStore(dataSource), queue, rehydrate: () => alice },
  };
}

function sqlite(database: string): DynamicModule {
  return TypeOrmModule.forRoot({
    type: 'better-sqlite3',
    database,
    entities: verdictEntities,
    migrations: verdictMigrations,
    migrationsRun: true,
  });
}

type Order = 'TypeOrmModule first' | 'VerdictModule first';
const ORDERS: readonly Order[] = ['TypeOrmModule first', 'VerdictModule first'];

/** Proposes, approves and waits for the executor to start: answers the item id. */
async function approveAndStart(moduleRef: Awaited<ReturnType<typeof compile>>, started: Promise<void>) {
  await moduleRef
    .get(ActionContextStore)
    .run(alice, () => moduleRef.get(VerdictService).execute({ capability: 'exports.run', arguments: {} }));
  const [item] = await moduleRef.get(ReviewService).pending({ tenant: 'acme' });
  await moduleRef.get(ReviewService).approve(item!.itemId, { id: 'staff:bob', context: bob });
  await started;
  return item!.itemId;
}

function compile(imports: Array<DynamicModule | Type>) {
  return Test.createTestingModule({ imports }).compile();
}

/** What the database says once the application is closed: the item's status and the run's final evidence. */
async function afterClose(database: string, itemId: string) {
  const dataSource = await new DataSource({ type: 'better-sqlite3', database, entities: verdictEntities }).initialize();
  try {
    const item = await new TypeOrmReviewItemStore(dataSource).find(itemId);
    const records = await new TypeOrmEvidenceQuery(dataSource).list({ capability: 'exports.run' });
    const executed = records.filter((record) => record.stage === 'execution' && record.disposition === 'permit');
    return { status: item?.status, executedRecords: executed.length };
  } finally {
    await dataSource.destroy();
  }
}

describe('app.close() while a review-lane job runs (TypeORM stores)', () => {
  describe.each(ORDERS)('in-process lane, %s', (order) => {
    it('settles the job in flight, with its evidence, before the DataSource is destroyed', async () => {
      const database = join(mkdtempSync(join(tmpdir(), 'verdict-shutdown-')), 'verdict.sqlite');
      const held = heldExecutor();
      const queue = held.openingOn(new InProcessDeferredQueue({ attempts: 1 }), 'close');
      const verdict = VerdictModule.forRootAsync({
        inject: [DataSource],
        useFactory: (dataSource: DataSource) => laneOptions(held, held.openingOn(dataSource, 'destroy'), queue),
      });
      const moduleRef = await compile(
        order === 'TypeOrmModule first' ? [sqlite(database), verdict] : [verdict, sqlite(database)],
      );
      moduleRef.useLogger(false);
      await moduleRef.init();
      const itemId = await approveAndStart(moduleRef, held.started);

      await moduleRef.close();

      expect(held.effects).toEqual(['exported']);
      expect(queue.failed.map(({ error }) => String(error))).toEqual([]);
      expect(await afterClose(database, itemId)).toEqual({ status: 'executed', executedRecords: 1 });
      // Closing again is harmless.
      await expect(moduleRef.close()).resolves.toBeUndefined();
    });
  });

  it('control: a job approved and run before close() settles as before', async () => {
    const database = join(mkdtempSync(join(tmpdir(), 'verdict-shutdown-')), 'verdict.sqlite');
    const held = heldExecutor();
    const queue = new InProcessDeferredQueue({ attempts: 1 });
    const moduleRef = await compile([
      VerdictModule.forRootAsync({
        inject: [DataSource],
        useFactory: (dataSource: DataSource) => laneOptions(held, dataSource, queue),
      }),
      sqlite(database),
    ]);
    await moduleRef.init();
    held.release();
    const itemId = await approveAndStart(moduleRef, held.started);
    await queue.idle();
    await moduleRef.close();
    expect(held.effects).toEqual(['exported']);
    expect(await afterClose(database, itemId)).toEqual({ status: 'executed', executedRecords: 1 });
  });
});

/** A store client of the application's own, closed where docs/review-lane.md says: in `onApplicationShutdown`. */
@Injectable()
class AppDatabase implements OnApplicationShutdown {
  closed = false;
  onApplicationShutdown(): void {
    this.closed = true;
  }
}

@Global()
@Module({ providers: [AppDatabase], exports: [AppDatabase] })
class AppDatabaseModule {}

/** `store` written through `database`: every call rejects once the client is closed. */
function through<T extends object>(database: AppDatabase, store: T): T {
  return new Proxy(store, {
    get(target, key, receiver) {
      const value: unknown = Reflect.get(target, key, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) =>
        database.closed
          ? Promise.reject(new Error(`the client is closed (${String(key)})`))
          : (value as (...a: unknown[]) => unknown).apply(target, args);
    },
  });
}

/** In-memory stores behind the application's client; the lane on `queue`. */
function storesThrough(held: ReturnType<typeof heldExecutor>, database: AppDatabase, queue: DeferredQueue) {
  const items = new InMemoryReviewItemStore();
  return {
    items,
    options: {
      abilityFactory: ability,
      evidence: through(database, new InMemoryEvidenceRecorder()),
      executionClaims: through(database, new InMemoryExecutionClaimStore()),
      capabilities: [held.capability],
      review: { items: through(database, items), queue, rehydrate: () => alice },
    },
  };
}

describe("app.close() while a review-lane job runs (the application's own store client)", () => {
  it.each(['AppDatabaseModule first', 'VerdictModule first'])(
    '%s: a client closed in onApplicationShutdown is open until the job in flight settled',
    async (order) => {
      const held = heldExecutor();
      const queue = held.openingOn(new InProcessDeferredQueue({ attempts: 1 }), 'close');
      let items!: InMemoryReviewItemStore;
      const verdict = VerdictModule.forRootAsync({
        inject: [AppDatabase],
        useFactory: (database: AppDatabase) => {
          const stores = storesThrough(held, database, queue);
          items = stores.items;
          return stores.options;
        },
      });
      const moduleRef = await compile(
        order === 'AppDatabaseModule first' ? [AppDatabaseModule, verdict] : [verdict, AppDatabaseModule],
      );
      moduleRef.useLogger(false);
      await moduleRef.init();
      const itemId = await approveAndStart(moduleRef, held.started);

      await moduleRef.close();

      expect(held.effects).toEqual(['exported']);
      expect(queue.failed.map(({ error }) => String(error))).toEqual([]);
      expect((await items.find(itemId))?.status).toBe('executed');
      expect(moduleRef.get(AppDatabase).closed).toBe(true);
    },
  );
});

describe('an approval while the in-process lane drains', () => {
  /** The lane's queue, with a promise that resolves once Verdict starts closing it (the drain began). */
  function observedQueue() {
    const queue = new InProcessDeferredQueue({ attempts: 1 });
    let markClosing!: () => void;
    const closing = new Promise<void>((resolve) => (markClosing = resolve));
    const close = queue.close.bind(queue);
    Object.assign(queue, {
      close: () => {
        markClosing();
        return close();
      },
    });
    return { queue, closing };
  }

  async function application(held: ReturnType<typeof heldExecutor>, queue: DeferredQueue) {
    const items = new InMemoryReviewItemStore();
    const moduleRef = await compile([
      VerdictModule.forRoot({
        abilityFactory: ability,
        evidence: new InMemoryEvidenceRecorder(),
        executionClaims: new InMemoryExecutionClaimStore(),
        capabilities: [held.capability],
        review: { items, queue, rehydrate: () => alice },
      }),
    ]);
    moduleRef.useLogger(false);
    await moduleRef.init();
    return { moduleRef, items };
  }

  /** Alice proposes the export again: answers the id of the item it parked. */
  async function parkAnother(moduleRef: Awaited<ReturnType<typeof compile>>): Promise<string> {
    await moduleRef
      .get(ActionContextStore)
      .run(alice, () => moduleRef.get(VerdictService).execute({ capability: 'exports.run', arguments: {} }));
    const pending = await moduleRef.get(ReviewService).pending({ tenant: 'acme' });
    expect(pending).toHaveLength(1);
    return pending[0]!.itemId;
  }

  it('is refused to the approver with a DeferredQueueClosedError, not queued where nothing runs it', async () => {
    const held = heldExecutor();
    const { queue, closing } = observedQueue();
    const { moduleRef, items } = await application(held, queue);
    const first = await approveAndStart(moduleRef, held.started);
    const late = await parkAnother(moduleRef);

    const closed = moduleRef.close();
    await closing;
    const refused = await moduleRef
      .get(ReviewService)
      .approve(late, { id: 'staff:bob', context: bob })
      .catch((error: unknown) => error);
    held.release();
    await closed;

    expect(refused).toBeInstanceOf(DeferredQueueClosedError);
    expect(refused).toMatchObject({ context: { itemId: late } });
    // The approval committed: the item stays approved for an operator's re-queue. The first job settled.
    expect((await items.find(late))?.status).toBe('approved');
    expect((await items.find(first))?.status).toBe('executed');
    expect(held.effects).toEqual(['exported']);
  });

  it('control: the same approval before close() is queued and runs', async () => {
    const held = heldExecutor();
    const { queue } = observedQueue();
    const { moduleRef, items } = await application(held, queue);
    held.release();
    const first = await approveAndStart(moduleRef, held.started);
    const second = await parkAnother(moduleRef);
    await moduleRef.get(ReviewService).approve(second, { id: 'staff:bob', context: bob });
    await queue.idle();
    await moduleRef.close();
    expect((await items.find(first))?.status).toBe('executed');
    expect((await items.find(second))?.status).toBe('executed');
    expect(held.effects).toEqual(['exported', 'exported']);
  });
});

const redis = testRedisUrl();

(redis === undefined ? describe.skip : describe)('app.close() while a review-lane job runs on BullMQ', () => {
  it.each(ORDERS)('%s: the job in flight settles with its evidence', async (order) => {
    const database = join(mkdtempSync(join(tmpdir(), 'verdict-shutdown-')), 'verdict.sqlite');
    const held = heldExecutor();
    const verdict = VerdictModule.forRootAsync({
      inject: [DataSource, BullMqDeferredQueue],
      useFactory: (dataSource: DataSource, queue: BullMqDeferredQueue) =>
        laneOptions(held, held.openingOn(dataSource, 'destroy'), held.openingOn(queue, 'close')),
    });
    const bull = [
      BullModule.forRoot({ connection: { url: redis! }, prefix: uniqueRedisPrefix() }),
      VerdictBullMqModule.register({ jobs: { attempts: 1 } }),
    ];
    const moduleRef = await compile(
      order === 'TypeOrmModule first' ? [sqlite(database), ...bull, verdict] : [verdict, ...bull, sqlite(database)],
    );
    moduleRef.useLogger(false);
    await moduleRef.init();
    const itemId = await approveAndStart(moduleRef, held.started);

    await moduleRef.close();

    expect(held.effects).toEqual(['exported']);
    expect(await afterClose(database, itemId)).toEqual({ status: 'executed', executedRecords: 1 });
  });
});
