import { describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import {
  ActionContextStore,
  InMemoryEvidenceRecorder,
  InMemoryExecutionClaimStore,
  InMemoryReviewItemStore,
  InProcessDeferredQueue,
  type ReviewItemStore,
  ReviewService,
  VerdictConfigurationError,
  VerdictModule,
  VerdictService,
} from '@verdict/nestjs';
import { TypeOrmReviewItemStore, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, dropDataSource, openDataSource, refundFixture } from '@verdict/testing-kit';

/**
 * docs/review-lane.md: a review item keeps the requester's tenant in a `varchar(255)` column on every engine. A longer
 * tenant was parked by SQLite and the in-memory store, and failed mid-write with a raw `QueryFailedError` on
 * PostgreSQL and MariaDB; it is now refused with `VerdictConfigurationError` before anything is parked or recorded,
 * alike on every store.
 */
const stores: Array<[string, () => Promise<{ items: ReviewItemStore; close(): Promise<void> }>]> = [
  ['memory', async () => ({ items: new InMemoryReviewItemStore(), close: async () => {} })],
  ...databaseEngines().map((engine): (typeof stores)[number] => [
    engine.name,
    async () => {
      const dataSource = await openDataSource(engine, { entities: verdictEntities, migrations: verdictMigrations });
      return { items: new TypeOrmReviewItemStore(dataSource), close: () => dropDataSource(dataSource) };
    },
  ]),
];

/** customer:72 asks for a refund of order 1002, everyone in `tenant`; answers how the call ended and what is queued. */
async function proposeIn(items: ReviewItemStore, tenant: string) {
  const fixture = refundFixture({ record: async () => {} });
  fixture.orders.set(1002, { ...fixture.orders.get(1002)!, tenantId: tenant });
  for (const id of ['customer:72', 'staff:7']) fixture.people.set(id, { ...fixture.people.get(id)!, tenant });
  const evidence = new InMemoryEvidenceRecorder();
  const moduleRef = await Test.createTestingModule({
    imports: [
      VerdictModule.forRoot({
        abilityFactory: fixture.abilityFactory,
        capabilities: [fixture.refund],
        evidence,
        executionClaims: new InMemoryExecutionClaimStore(),
        actorKey: fixture.actorKey,
        review: {
          items,
          queue: new InProcessDeferredQueue({ attempts: 1 }),
          rehydrate: fixture.rehydrate,
          actorKey: fixture.actorKey,
        },
      }),
    ],
  }).compile();
  await moduleRef.init();
  try {
    const call = moduleRef
      .get(ActionContextStore)
      .run(fixture.contextOf('customer:72', 'conversation-1'), () =>
        moduleRef
          .get(VerdictService)
          .execute({ capability: 'orders.refund', arguments: { orderId: 1002, amount: 120 }, toolCallId: 'call_1' }),
      )
      .then((result) => result.decision.disposition);
    const outcome = await call.catch((error: unknown) => error);
    const pending = await moduleRef.get(ReviewService).pending({ tenant, capability: 'orders.refund' });
    const recorded = evidence.decisions().map((record) => record.disposition);
    return { outcome, pending: pending.length, recorded };
  } finally {
    await moduleRef.close();
  }
}

describe.each(stores)('a review item’s tenant [%s]', (_engine, open) => {
  it('attack: a tenant of 256 characters is refused with VerdictConfigurationError; nothing is parked', async () => {
    const store = await open();
    try {
      const { outcome, pending, recorded } = await proposeIn(store.items, 't'.repeat(256));

      expect(outcome).toBeInstanceOf(VerdictConfigurationError);
      expect((outcome as Error).message).toMatch(/at most 255/);
      expect(pending).toBe(0);
      expect(recorded).not.toContain('require_review');
    } finally {
      await store.close();
    }
  }, 60_000);

  it('control: a tenant of 255 characters is parked for its reviewer and listed', async () => {
    const store = await open();
    try {
      const { outcome, pending, recorded } = await proposeIn(store.items, 't'.repeat(255));

      expect(outcome).toBe('require_review');
      expect(pending).toBe(1);
      expect(recorded).toContain('require_review');
    } finally {
      await store.close();
    }
  }, 60_000);
});
