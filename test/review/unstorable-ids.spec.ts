import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { Controller, Post } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import request from 'supertest';
import {
  ActionContextStore,
  DeferredExecutionWorker,
  InMemoryEvidenceRecorder,
  InMemoryExecutionClaimStore,
  InMemoryReviewItemStore,
  InProcessDeferredQueue,
  type ReviewItemStore,
  ReviewEndpoint,
  ReviewRequest,
  ReviewService,
  VerdictConfigurationError,
  VerdictModule,
  VerdictService,
  type VerifiedReviewRequest,
} from '@verdict/nestjs';
import { TypeOrmReviewItemStore } from '@verdict/nestjs/typeorm';
import { refundFixture, storeBackends } from '@verdict/testing-kit';

/** Every review item store to decide on: memory, and TypeORM on each engine of the database matrix. */
const backends = storeBackends<{ items: ReviewItemStore }>(
  () => ({ items: new InMemoryReviewItemStore() }),
  (dataSource) => ({ items: new TypeOrmReviewItemStore(dataSource) }),
);

const unique = (prefix: string) => prefix + randomBytes(8).toString('hex');

@Controller('reviews')
class ReviewController {
  constructor(private readonly reviews: ReviewService) {}

  @Post(':itemId/approve')
  @ReviewEndpoint()
  approve(@ReviewRequest() { item, reviewer }: VerifiedReviewRequest) {
    return this.reviews.approve(item.itemId, reviewer);
  }
}

/**
 * ADR 0186: identifiers from outside — a model-written tool-call id, a review item id from a URL, a reviewer id — are
 * text every engine stores and finds: well-formed, without U+0000. PostgreSQL refuses U+0000, where SQLite, MariaDB and
 * memory keep it: a tool-call id holding one failed the proposal with a raw `QueryFailedError` after its `proposal
 * permit` record, an item id holding one failed `check`, `approve` and the review endpoint (500, not 404), and a
 * reviewer id holding one failed the approval after its `authorized` record, the item left pending.
 */
describe.each(backends)('identifiers no engine stores alike, on the review lane [%s]', (_engine, open) => {
  let backend: Awaited<ReturnType<(typeof backends)[number][1]>>;
  beforeAll(async () => {
    backend = await open();
  });
  afterAll(async () => backend?.close());

  /** The refund review lane on the engine's items, behind `POST /reviews/:itemId/approve` (reviewer from `x-person`). */
  async function lane() {
    const refunds: unknown[] = [];
    const fixture = refundFixture({ record: async (action) => void refunds.push(action) });
    const evidence = new InMemoryEvidenceRecorder();
    const queue = new InProcessDeferredQueue({ attempts: 1 });
    const moduleRef = await Test.createTestingModule({
      imports: [
        VerdictModule.forRoot({
          abilityFactory: fixture.abilityFactory,
          capabilities: [fixture.refund],
          evidence,
          executionClaims: new InMemoryExecutionClaimStore(),
          actorKey: fixture.actorKey,
          review: { items: backend.items, queue, rehydrate: fixture.rehydrate, actorKey: fixture.actorKey },
          reviewEndpoint: {
            reviewer: (context) => {
              const person = context.switchToHttp().getRequest().headers['x-person'] as string | undefined;
              return person === undefined ? null : { id: person, context: fixture.contextOf('staff:7') };
            },
          },
        }),
      ],
      controllers: [ReviewController],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    const reviews = moduleRef.get(ReviewService);
    /** customer:72 proposes the refund under `toolCallId`, in a new conversation. */
    const propose = (toolCallId: string) =>
      moduleRef
        .get(ActionContextStore)
        .run(fixture.contextOf('customer:72', unique('conversation-')), () =>
          moduleRef
            .get(VerdictService)
            .execute({ capability: 'orders.refund', arguments: { orderId: 1002, amount: 120 }, toolCallId }),
        );
    const parked = async () => {
      await propose(unique('call_'));
      return (await reviews.pending({ tenant: 'acme', capability: 'orders.refund' })).at(-1)!.itemId;
    };
    const reviewer = (id: string) => ({ id, context: fixture.contextOf('staff:7') });
    const reviewRecords = () => evidence.decisions().filter((record) => record.toolKind === 'reviewer');
    const post = (path: string, person = 'staff:7') => request(app.getHttpServer()).post(path).set('x-person', person);
    return {
      reviews,
      evidence,
      propose,
      parked,
      reviewer,
      reviewRecords,
      refunds,
      queue,
      post,
      worker: moduleRef.get(DeferredExecutionWorker),
      close: () => app.close(),
    };
  }

  it('attack: a tool-call id holding U+0000 or a lone surrogate is a recorded deny at proposal; nothing is parked', async () => {
    const { reviews, evidence, propose, close } = await lane();
    const before = (await reviews.pending({ tenant: 'acme', capability: 'orders.refund' })).length;
    const answers = [];
    for (const toolCallId of [unique('call_') + '\u0000x', unique('call_') + '\ud800'])
      answers.push((await propose(toolCallId)).decision);
    const pending = await reviews.pending({ tenant: 'acme', capability: 'orders.refund' });
    await close();
    expect(answers).toEqual([
      expect.objectContaining({ disposition: 'deny', stage: 'proposal' }),
      expect.objectContaining({ disposition: 'deny', stage: 'proposal' }),
    ]);
    expect(answers[0]!.reason).toMatch(/malformed tool-call id: a string holding U\+0000 or a lone surrogate/);
    expect(evidence.decisions().map((record) => `${record.stage}/${record.disposition}`)).toEqual([
      'proposal/deny',
      'proposal/deny',
    ]);
    expect(pending).toHaveLength(before);
  });

  it('control: a tool-call id with a well-formed astral character is parked for review', async () => {
    const { propose, close } = await lane();
    const result = await propose(unique('call_😀'));
    await close();
    expect(result.decision).toMatchObject({ disposition: 'require_review', stage: 'review' });
  });

  it('attack: an item id holding U+0000 names no item: not_found from check, approve, reject and requeue', async () => {
    const { reviews, reviewer, reviewRecords, close } = await lane();
    const ids = ['rvw_\u0000abc', 'rvw_\ud800abc', `rvw_${'x'.repeat(61)}`];
    const got = [];
    for (const id of ids) {
      got.push((await reviews.check(id, reviewer('staff:7'))).allowed);
      got.push((await reviews.approve(id, reviewer('staff:7'))).outcome);
      got.push((await reviews.reject(id, reviewer('staff:7'))).outcome);
      got.push((await reviews.requeue(id, { by: 'operator:7' })).outcome);
    }
    const outcomes = reviewRecords().map((record) => record.approvalOutcome);
    await close();
    expect(got).toEqual(ids.flatMap(() => [false, 'not_found', 'not_found', 'not_found']));
    // A refused decision writes its one `not_found` record, as for any unknown id (docs/review-lane.md §6).
    expect(outcomes).toEqual(ids.flatMap(() => ['not_found', 'not_found']));
  });

  it('attack: a job whose item id no item can have is answered not_found and recorded, as ReviewService answers', async () => {
    const { worker, reviewRecords, evidence, close } = await lane();
    const ids = ['rvw_\u0000abc', 'rvw_\ud800abc', `rvw_${'x'.repeat(61)}`];
    const outcomes = [];
    for (const itemId of ids) outcomes.push(await worker.run({ itemId }));
    const records = evidence.decisions().filter((record) => record.approvalOutcome === 'not_found');
    await close();
    expect(outcomes).toEqual(ids.map((itemId) => ({ itemId, executed: false })));
    expect(records).toHaveLength(ids.length);
    expect(reviewRecords()).toEqual([]);
  });

  it('attack: the review endpoint answers 404 for /reviews/rvw_%00x/approve, as for any unknown item', async () => {
    const { post, close } = await lane();
    const response = await post('/reviews/rvw_%00x/approve');
    await close();
    expect({ status: response.status, message: response.body.message }).toEqual({
      status: 404,
      message: 'There is no such review item in your tenant.',
    });
  });

  it('control: the review endpoint approves a parked item, and its refund runs', async () => {
    const { parked, post, queue, refunds, close } = await lane();
    const itemId = await parked();
    const response = await post(`/reviews/${itemId}/approve`);
    await queue.idle();
    await close();
    expect({ status: response.status, outcome: response.body.outcome, refunds: refunds.length }).toEqual({
      status: 201,
      outcome: 'approved',
      refunds: 1,
    });
  });

  it('attack: a reviewer id holding U+0000 or a lone surrogate is refused before anything is recorded', async () => {
    const { reviews, parked, reviewer, reviewRecords, close } = await lane();
    const itemId = await parked();
    await expect(reviews.approve(itemId, reviewer('staff:7\u0000'))).rejects.toThrow(VerdictConfigurationError);
    await expect(reviews.reject(itemId, reviewer('staff:\udc00'))).rejects.toThrow(
      /reviewer id without U\+0000 or a lone surrogate/,
    );
    const recorded = reviewRecords();
    const status = (await backend.items.find(itemId))?.status;
    await close();
    expect({ recorded, status }).toEqual({ recorded: [], status: 'pending' });
  });

  it('control: a reviewer id with a well-formed astral character approves and is kept as given', async () => {
    const { reviews, parked, reviewer, reviewRecords, queue, refunds, close } = await lane();
    const itemId = await parked();
    expect(await reviews.approve(itemId, reviewer('staff:😀'))).toMatchObject({ outcome: 'approved' });
    await queue.idle();
    const item = await backend.items.find(itemId);
    const outcomes = reviewRecords().map((record) => record.approvalOutcome);
    await close();
    expect({ decidedBy: item?.decidedBy, outcomes, refunds: refunds.length }).toEqual({
      decidedBy: 'staff:😀',
      outcomes: ['authorized', 'approved'],
      refunds: 1,
    });
  });
});
