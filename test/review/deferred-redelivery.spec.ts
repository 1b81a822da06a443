import { describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import {
  ActionContextStore,
  type AuthorizedAction,
  type CapabilityDefinition,
  InMemoryEvidenceRecorder,
  InMemoryExecutionClaimStore,
  InMemoryReviewItemStore,
  InProcessDeferredQueue,
  type ReviewItemSettlement,
  VerdictModule,
  VerdictService,
  atMostOnce,
  defineCapability,
} from '@verdict/nestjs';
import { type RefundArguments, type RefundOrder, refundFixture } from '@verdict/testing-kit';

/** A review-item store whose first settlement fails, as when a worker dies right after the executor returned. */
class FirstSettlementFails extends InMemoryReviewItemStore {
  private failed = false;

  override async settle(settlement: ReviewItemSettlement): Promise<boolean> {
    if (!this.failed) {
      this.failed = true;
      throw new Error('worker lost before settling');
    }
    return super.settle(settlement);
  }
}

async function setup() {
  const refunds: AuthorizedAction<RefundArguments, RefundOrder>[] = [];
  let bump = (_id: number) => {};
  const fixture = refundFixture({ record: async (action) => void refunds.push(action) }, async () => bump(1002));
  bump = fixture.bumpVersion;
  // A refund run at most once per order version: the house pattern of a key that reads the target's state,
  // which the execution itself changes.
  const refundOnce: CapabilityDefinition = defineCapability<RefundArguments, RefundOrder, string>(
    {
      ...fixture.refund,
      name: 'orders.refund-once',
      requiresReview: undefined,
      atMostOnce: atMostOnce<RefundArguments, RefundOrder>({
        name: 'refund-once-per-version',
        key: (_envelope, order) => ({ order: order.id, version: order.version }),
      }),
    },
    fixture.refund.executor as never,
  );
  const queue = new InProcessDeferredQueue({ attempts: 3 });
  const moduleRef = await Test.createTestingModule({
    imports: [
      VerdictModule.forRoot({
        abilityFactory: fixture.abilityFactory,
        capabilities: [refundOnce],
        evidence: new InMemoryEvidenceRecorder(),
        executionClaims: new InMemoryExecutionClaimStore(),
        review: { items: new FirstSettlementFails(), queue, rehydrate: fixture.rehydrate, actorKey: fixture.actorKey },
      }),
    ],
  }).compile();
  await moduleRef.init();
  const enqueue = (amount: number) =>
    moduleRef
      .get(ActionContextStore)
      .run(fixture.contextOf('customer:72', 'conversation-1'), () =>
        moduleRef
          .get(VerdictService)
          .enqueue({ capability: 'orders.refund-once', arguments: { orderId: 1002, amount } }),
      );
  return { enqueue, queue, refunds, moduleRef };
}

describe('a deferred job delivered again after its executor ran', () => {
  it('never executes twice, although the capability’s own claim key changed with the execution', async () => {
    const { enqueue, queue, refunds, moduleRef } = await setup();
    const queued = await enqueue(5);
    expect(queued.decision).toMatchObject({ disposition: 'permit', stage: 'review' });
    await queue.idle();
    expect(refunds).toHaveLength(1);
    await moduleRef.close();
  });

  it('utility: a second enqueued refund (a new item) still runs once', async () => {
    const { enqueue, queue, refunds, moduleRef } = await setup();
    await enqueue(5);
    await queue.idle();
    await enqueue(7);
    await queue.idle();
    expect(refunds.map((action) => action.arguments.amount)).toEqual([5, 7]);
    await moduleRef.close();
  });
});
