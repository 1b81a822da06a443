import { describe, expect, it } from '@jest/globals';
import { EventEmitter2, EventEmitterModule } from '@nestjs/event-emitter';
import { Test } from '@nestjs/testing';
import {
  ActionContextStore,
  type CapabilityDefinition,
  DeferredExecutionWorker,
  InMemoryEvidenceRecorder,
  InMemoryExecutionClaimStore,
  InMemoryRateLimitStore,
  InMemoryReviewItemStore,
  InProcessDeferredQueue,
  ReviewService,
  ReviewedOperationExecuted,
  ReviewedOperationRefused,
  VerdictModule,
  VerdictService,
  defineCapability,
  fixedWindow,
} from '@verdict/nestjs';
import { refundFixture } from '@verdict/testing-kit';
import { bootReviewLane } from './review-lane.fixture.js';

type Fixture = ReturnType<typeof refundFixture>;

/**
 * A refund approved by staff whose first run is inside its executor (held until `finish()`), while an operator
 * re-queues the item and a second run takes the new job. `variant` decides how the second run is refused before
 * its claim: the executor changed the order (a new version), or the customer's one refund an hour is used up.
 */
async function secondRunDuringTheFirst(variant: 'order_changed' | 'rate_limited') {
  const refunds: unknown[] = [];
  let entered!: () => void;
  const executorEntered = new Promise<void>((resolve) => (entered = resolve));
  let finish!: () => void;
  const held = new Promise<void>((resolve) => (finish = resolve));
  const fixture: Fixture = refundFixture({ record: async (action) => void refunds.push(action) }, async () => {
    if (variant === 'order_changed') fixture.bumpVersion(1002);
    entered();
    await held;
  });
  const refund =
    variant === 'rate_limited'
      ? defineCapability(
          {
            ...fixture.refund,
            rateLimit: fixedWindow({
              name: 'refund-per-customer',
              limit: 1,
              windowSeconds: 3600,
              key: ({ context }) => ({ customer: (context.actor as { id: string }).id }),
              reason: 'one refund an hour',
            }),
          } as CapabilityDefinition,
          fixture.refund.executor as never,
        )
      : fixture.refund;
  const items = new InMemoryReviewItemStore();
  const claims = new InMemoryExecutionClaimStore();
  // One instant for the whole test: the hourly rate-limit window cannot roll over between the two runs.
  const now = new Date();
  const moduleRef = await Test.createTestingModule({
    imports: [
      EventEmitterModule.forRoot(),
      VerdictModule.forRoot({
        clock: () => now,
        abilityFactory: fixture.abilityFactory,
        capabilities: [refund],
        evidence: new InMemoryEvidenceRecorder(),
        executionClaims: claims,
        rateLimits: new InMemoryRateLimitStore(),
        actorKey: fixture.actorKey,
        review: {
          items,
          queue: new InProcessDeferredQueue({ attempts: 1 }),
          rehydrate: fixture.rehydrate,
          actorKey: fixture.actorKey,
          work: false,
        },
      }),
    ],
  }).compile();
  await moduleRef.init();
  const events: string[] = [];
  const emitter = moduleRef.get(EventEmitter2);
  emitter.on(ReviewedOperationExecuted.event, () => events.push('executed'));
  emitter.on(ReviewedOperationRefused.event, () => events.push('refused'));
  const reviews = moduleRef.get(ReviewService);
  const worker = moduleRef.get(DeferredExecutionWorker);
  await moduleRef
    .get(ActionContextStore)
    .run(fixture.contextOf('customer:72', 'conversation-1'), () =>
      moduleRef
        .get(VerdictService)
        .execute({ capability: 'orders.refund', arguments: { orderId: 1002, amount: 120 }, toolCallId: 'call_1' }),
    );
  const [pending] = await reviews.pending({ tenant: 'acme', capability: 'orders.refund' });
  const itemId = pending!.itemId;
  await reviews.approve(itemId, { id: 'staff:7', context: fixture.contextOf('staff:7') });

  const first = worker.run({ itemId });
  await executorEntered;
  const requeued = await reviews.requeue(itemId, { by: 'operator:7' });
  const second = await worker.run({ itemId });
  finish();
  await first;
  const outcome = {
    requeued: requeued.outcome,
    second: second.executed,
    status: (await items.find(itemId))?.status,
    refunds: refunds.length,
    events,
    unresolvedClaims: (await claims.unresolved()).length,
  };
  await moduleRef.close();
  return outcome;
}

describe('a re-queued job delivered while the first run executes', () => {
  it.each(['order_changed', 'rate_limited'] as const)(
    'attack (%s): the second run is refused before its claim, yet it neither settles the executed item nor reports it refused',
    async (variant) => {
      expect(await secondRunDuringTheFirst(variant)).toEqual({
        requeued: 'requeued',
        second: false,
        status: 'executed',
        refunds: 1,
        events: ['executed'],
        unresolvedClaims: 0,
      });
    },
  );

  it('utility: a run refused with no other run in flight settles the item refused and reports it once', async () => {
    const lane = await bootReviewLane({ work: false });
    const refused: unknown[] = [];
    lane.moduleRef.get(EventEmitter2).on(ReviewedOperationRefused.event, (event) => refused.push(event));
    const worker = lane.moduleRef.get(DeferredExecutionWorker);
    const itemId = await lane.propose();
    await lane.reviews.approve(itemId, lane.reviewer('staff:7'));
    lane.fixture.bumpVersion(1002); // the order changed after review: the run is denied at step 10

    const run = await worker.run({ itemId });
    const retry = await worker.run({ itemId });

    expect([run.executed, retry.executed]).toEqual([false, false]);
    expect(await lane.statusOf(itemId)).toBe('refused');
    expect(refused).toHaveLength(1);
    expect(lane.refunds).toHaveLength(0);
    await lane.moduleRef.close();
  });
});
