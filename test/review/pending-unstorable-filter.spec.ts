import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { Test } from '@nestjs/testing';
import {
  ActionContextStore,
  InMemoryEvidenceRecorder,
  InMemoryExecutionClaimStore,
  InMemoryReviewItemStore,
  InProcessDeferredQueue,
  type ReviewItemStore,
  ReviewService,
  VerdictModule,
  VerdictService,
} from '@verdict/nestjs';
import { TypeOrmReviewItemStore } from '@verdict/nestjs/typeorm';
import { refundFixture, storeBackends } from '@verdict/testing-kit';

/** Every review item store: memory, and TypeORM on each engine of the database matrix. */
const backends = storeBackends<{ items: ReviewItemStore }>(
  () => ({ items: new InMemoryReviewItemStore() }),
  (dataSource) => ({ items: new TypeOrmReviewItemStore(dataSource) }),
);

/**
 * `ReviewService.pending` takes its tenant and capability from the application, often from a request. One holding
 * U+0000 failed on PostgreSQL with a raw `QueryFailedError` (a 500 behind the reviewer's list endpoint) where memory,
 * SQLite and MariaDB answered `[]`. Such a value names no item, as an item id holding one does: `[]` on every engine.
 */
describe.each(backends)('ReviewService.pending with a filter no item holds [%s]', (_engine, open) => {
  let backend: Awaited<ReturnType<(typeof backends)[number][1]>>;
  let reviews: ReviewService;
  let close: () => Promise<void>;
  beforeAll(async () => {
    backend = await open();
    const fixture = refundFixture({ record: async () => {} });
    const moduleRef = await Test.createTestingModule({
      imports: [
        VerdictModule.forRoot({
          abilityFactory: fixture.abilityFactory,
          capabilities: [fixture.refund],
          evidence: new InMemoryEvidenceRecorder(),
          executionClaims: new InMemoryExecutionClaimStore(),
          actorKey: fixture.actorKey,
          review: {
            items: backend.items,
            queue: new InProcessDeferredQueue({ attempts: 1 }),
            rehydrate: fixture.rehydrate,
            actorKey: fixture.actorKey,
          },
        }),
      ],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    reviews = moduleRef.get(ReviewService);
    // customer:72 proposes a refund a reviewer must decide: one pending item of tenant acme.
    const parked = await moduleRef
      .get(ActionContextStore)
      .run(fixture.contextOf('customer:72', `conversation-${randomBytes(8).toString('hex')}`), () =>
        moduleRef.get(VerdictService).execute({
          capability: 'orders.refund',
          arguments: { orderId: 1002, amount: 120 },
          toolCallId: `call_${randomBytes(8).toString('hex')}`,
        }),
      );
    expect(parked.decision).toMatchObject({ disposition: 'require_review' });
    close = async () => {
      await app.close();
      await backend.close();
    };
  });
  afterAll(async () => close?.());

  it.each([
    ['a tenant holding U+0000', { tenant: 'acme\u0000' }],
    ['a tenant holding a lone surrogate', { tenant: 'acme\ud800' }],
    ['a capability holding U+0000', { tenant: 'acme', capability: 'orders.refund\u0000' }],
    ['a capability holding a lone surrogate', { tenant: 'acme', capability: 'orders.refund\udc00' }],
  ])('attack: %s lists no item', async (_what, query) => {
    expect(await reviews.pending(query)).toEqual([]);
  });

  it('control: the tenant and capability of the parked item list it', async () => {
    expect(await reviews.pending({ tenant: 'acme', capability: 'orders.refund' })).toEqual([
      expect.objectContaining({ capability: 'orders.refund', tenant: 'acme' }),
    ]);
    expect(await reviews.pending({ tenant: 'acme' })).toHaveLength(1);
  });
});
