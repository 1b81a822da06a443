import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { Test } from '@nestjs/testing';
import type { DataSource } from 'typeorm';
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
import { TypeOrmReviewItemStore, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, dropDataSource, openDataSource, refundFixture } from '@verdict/testing-kit';

const backends: Array<[string, () => Promise<{ items: ReviewItemStore; close(): Promise<void> }>]> = [
  ['memory', async () => ({ items: new InMemoryReviewItemStore(), close: async () => {} })],
  ...databaseEngines().map((engine): (typeof backends)[number] => [
    engine.name,
    async () => {
      const dataSource: DataSource = await openDataSource(engine, { entities: verdictEntities, migrations: verdictMigrations });
      return { items: new TypeOrmReviewItemStore(dataSource), close: () => dropDataSource(dataSource) };
    },
  ]),
];

describe.each(backends)('NUL in ids [%s]', (engine, open) => {
  let backend: Awaited<ReturnType<(typeof backends)[number][1]>>;
  beforeAll(async () => { backend = await open(); });
  afterAll(async () => backend?.close());

  async function lane() {
    const fixture = refundFixture({ record: async () => {} });
    const evidence = new InMemoryEvidenceRecorder();
    const moduleRef = await Test.createTestingModule({
      imports: [
        VerdictModule.forRoot({
          abilityFactory: fixture.abilityFactory,
          capabilities: [fixture.refund],
          evidence,
          executionClaims: new InMemoryExecutionClaimStore(),
          actorKey: fixture.actorKey,
          review: { items: backend.items, queue: new InProcessDeferredQueue({ attempts: 1 }), rehydrate: fixture.rehydrate, actorKey: fixture.actorKey },
        }),
      ],
    }).compile();
    await moduleRef.init();
    const propose = (toolCallId: string) =>
      moduleRef.get(ActionContextStore).run(fixture.contextOf('customer:72', 'c-' + randomBytes(4).toString('hex')), () =>
        moduleRef.get(VerdictService).execute({ capability: 'orders.refund', arguments: { orderId: 1002, amount: 120 }, toolCallId }),
      );
    return { moduleRef, fixture, evidence, reviews: moduleRef.get(ReviewService), propose };
  }

  it('a model-written tool-call id holding U+0000', async () => {
    const { propose, evidence, reviews } = await lane();
    let outcome: unknown;
    try {
      const result = await propose(`call_${randomBytes(4).toString('hex')}\u0000x`);
      outcome = { disposition: result.decision.disposition, stage: result.decision.stage };
    } catch (error) {
      outcome = { threw: (error as Error).constructor.name, message: (error as Error).message.slice(0, 120) };
    }
    const pending = await reviews.pending({ tenant: 'acme', capability: 'orders.refund' });
    console.log(engine, 'toolCallId NUL ->', JSON.stringify(outcome), 'records:', evidence.decisions().map((r) => `${r.stage}/${r.disposition}/${r.approvalPhase ?? ''}`).join(','), 'pending', pending.length);
  });

  it('an item id holding U+0000 (reviewer check / approve)', async () => {
    const { reviews, fixture, evidence } = await lane();
    const reviewer = { id: 'staff:7', context: fixture.contextOf('staff:7') };
    for (const call of ['check', 'approve'] as const) {
      let outcome: unknown;
      try {
        outcome = await (reviews[call] as any)('rvw_\u0000abc', reviewer);
      } catch (error) {
        outcome = { threw: (error as Error).constructor.name, message: (error as Error).message.slice(0, 120) };
      }
      console.log(engine, call, 'item id NUL ->', JSON.stringify(outcome), 'reviewer records', evidence.decisions().filter((r) => r.toolKind === 'reviewer').length);
    }
  });

  it('a reviewer id holding U+0000', async () => {
    const { reviews, fixture, evidence, propose } = await lane();
    await propose(`call_${randomBytes(4).toString('hex')}`);
    const itemId = (await reviews.pending({ tenant: 'acme', capability: 'orders.refund' })).at(-1)!.itemId;
    let outcome: unknown;
    try {
      outcome = await reviews.approve(itemId, { id: 'staff:7\u0000', context: fixture.contextOf('staff:7') });
    } catch (error) {
      outcome = { threw: (error as Error).constructor.name, message: (error as Error).message.slice(0, 120) };
    }
    const item = await backend.items.find(itemId);
    console.log(engine, 'reviewer id NUL ->', JSON.stringify(outcome), 'status', item?.status, 'reviewer records', evidence.decisions().filter((r) => r.toolKind === 'reviewer').map((r) => r.approvalOutcome).join(','));
  });
});
