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
  VerdictConfigurationError,
  VerdictModule,
  VerdictService,
} from '@verdict/nestjs';
import { TypeOrmReviewItemStore } from '@verdict/nestjs/typeorm';
import { refundFixture, storeBackends } from '@verdict/testing-kit';

/** A reviewer id of `length` characters, unique per call: the items are shared by the tests of an engine. */
const reviewerId = (length: number) => `staff:${randomBytes(8).toString('hex')}`.padEnd(length, 'x');

/** Every review item store to decide on: memory, and TypeORM on each engine of the database matrix. */
const backends = storeBackends<{ items: ReviewItemStore }>(
  () => ({ items: new InMemoryReviewItemStore() }),
  (dataSource) => ({ items: new TypeOrmReviewItemStore(dataSource) }),
);

/**
 * docs/review-lane.md "Deciding": an item id that is not a non-blank string is a `VerdictConfigurationError` from
 * `check`, `approve` and `reject` before anything is read or recorded, on every engine alike (as `ApprovalService`
 * refuses a blank receipt id); it used to be looked up: a `not_found` record for a blank id, and a raw driver error for
 * an object on SQLite. And a reviewer id longer than the items' `varchar(255)` `decided_by` is refused with
 * `VerdictConfigurationError` before anything is read or recorded, on every engine alike — as an approver id is
 * (test/approvals/identifier-lengths.spec.ts). It used to be stored on SQLite and in memory, and fail with a raw
 * `QueryFailedError` on PostgreSQL and MariaDB after the `authorized` record, with no closing one.
 */
describe.each(backends)('reviewer and item ids that are not ids [%s]', (_engine, open) => {
  let backend: Awaited<ReturnType<(typeof backends)[number][1]>>;
  beforeAll(async () => {
    backend = await open();
  });
  afterAll(async () => backend?.close());

  /** The refund review lane on the engine's items, with customer:72's refund parked (`itemId`), in a new conversation. */
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
        }),
      ],
    }).compile();
    await moduleRef.init();
    const reviews = moduleRef.get(ReviewService);
    const [toolCallId, conversation] = [`call_`, `conversation-`].map((p) => p + randomBytes(8).toString('hex'));
    await moduleRef
      .get(ActionContextStore)
      .run(fixture.contextOf('customer:72', conversation), () =>
        moduleRef
          .get(VerdictService)
          .execute({ capability: 'orders.refund', arguments: { orderId: 1002, amount: 120 }, toolCallId }),
      );
    const itemId = (await reviews.pending({ tenant: 'acme', capability: 'orders.refund' })).at(-1)!.itemId;
    /** staff:7 (who may review acme's orders) under the application id `id`. */
    const reviewer = (id: string) => ({ id, context: fixture.contextOf('staff:7') });
    /** The records of reviewers' decisions, a `not_found` for an id that names no item included. */
    const reviewRecords = () => evidence.decisions().filter((record) => record.toolKind === 'reviewer');
    return { reviews, itemId, reviewer, reviewRecords, refunds, queue, close: () => moduleRef.close() };
  }

  it('attack: a 256-character reviewer id is refused by approve and reject: nothing recorded, the item pending', async () => {
    const { reviews, itemId, reviewer, reviewRecords, close } = await lane();
    const staff = reviewer(reviewerId(256));
    await expect(reviews.approve(itemId, staff)).rejects.toThrow(VerdictConfigurationError);
    await expect(reviews.reject(itemId, staff)).rejects.toThrow(/reviewer id of at most 255 characters \(got 256\)/);
    expect(reviewRecords()).toEqual([]);
    expect((await backend.items.find(itemId))?.status).toBe('pending');
    await close();
  });

  it('control: a 255-character reviewer id approves, recorded as authorized then approved, and the refund runs', async () => {
    const { reviews, itemId, reviewer, reviewRecords, refunds, queue, close } = await lane();
    const id = reviewerId(255);
    expect(await reviews.approve(itemId, reviewer(id))).toMatchObject({ outcome: 'approved' });
    await queue.idle();
    expect(reviewRecords().map((record) => record.approvalOutcome)).toEqual(['authorized', 'approved']);
    expect(await backend.items.find(itemId)).toMatchObject({ decidedBy: id });
    expect(refunds).toHaveLength(1);
    await close();
  });
  it('attack: blank or non-string item ids are refused by check, approve and reject; nothing recorded', async () => {
    const { reviews, reviewer, reviewRecords, close } = await lane();
    const got = [];
    for (const id of [undefined, null, 42, '   ', { id: 'x' }])
      for (const call of ['check', 'approve', 'reject'] as const)
        got.push(
          await (reviews[call](id as never, reviewer('staff:7')) as Promise<unknown>).then(
            (answer) => answer,
            (error: unknown) => (error instanceof VerdictConfigurationError ? 'VerdictConfigurationError' : error),
          ),
        );
    const recorded = reviewRecords();
    await close();
    expect({ got: new Set(got), recorded }).toEqual({ got: new Set(['VerdictConfigurationError']), recorded: [] });
  });

  it('control: the parked item is checked, approved and its refund runs', async () => {
    const { reviews, itemId, reviewer, reviewRecords, refunds, queue, close } = await lane();
    const checked = await reviews.check(itemId, reviewer('staff:7'));
    const transition = await reviews.approve(itemId, reviewer('staff:7'));
    await queue.idle();
    const outcomes = reviewRecords().map((record) => record.approvalOutcome);
    await close();
    expect({ allowed: checked.allowed, outcome: transition.outcome, outcomes, refunds: refunds.length }).toEqual({
      allowed: true,
      outcome: 'approved',
      outcomes: ['authorized', 'approved'],
      refunds: 1,
    });
  });
});
