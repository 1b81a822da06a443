import { describe, expect, it } from '@jest/globals';
import { EventEmitter2, EventEmitterModule } from '@nestjs/event-emitter';
import { Test } from '@nestjs/testing';
import {
  ActionContextStore,
  type CapabilityDefinition,
  DeferredExecutionWorker,
  InMemoryBudgetStore,
  InMemoryEvidenceRecorder,
  InMemoryExecutionClaimStore,
  InMemoryRateLimitStore,
  InMemoryReviewItemStore,
  InProcessDeferredQueue,
  type RateLimitRequest,
  ReviewService,
  ReviewedOperationExecuted,
  ReviewedOperationRefused,
  VerdictModule,
  VerdictService,
  defineCapability,
  fixedWindow,
} from '@verdict/nestjs';
import { refundFixture } from '@verdict/testing-kit';

/**
 * A rate-limit store whose first consumption, once it counted its unit, waits until `release()`: the run that made
 * it stands between its rate limit and the later gates, with the customer's only unit spent (ADR 0191).
 */
class HeldFirstUnit extends InMemoryRateLimitStore {
  private consumed = 0;
  private reached!: () => void;
  /** Resolves once the first consumption counted its unit. */
  readonly spent = new Promise<void>((resolve) => (this.reached = resolve));
  release!: () => void;
  private readonly held = new Promise<void>((resolve) => (this.release = resolve));

  override async consume(request: RateLimitRequest) {
    const consumption = await super.consume(request);
    if (this.consumed++ === 0) {
      this.reached();
      await this.held;
    }
    return consumption;
  }
}

/** A rate-limit store whose first consumption fails (a dropped connection) before it counts anything. */
class FirstConsumptionFails extends InMemoryRateLimitStore {
  private calls = 0;

  override async consume(request: RateLimitRequest) {
    if (this.calls++ === 0) throw new Error('connection to the rate-limit store lost');
    return super.consume(request);
  }
}

/**
 * The review lane's refund, approved by staff and run by `worker.run` (two workers, or BullMQ redelivering a stalled
 * job): `refundsPerHour` refunds an hour per customer, and at most `budget` EUR a day per customer.
 */
async function bootLane(options: { rateLimits: InMemoryRateLimitStore; refundsPerHour: number; budget?: number }) {
  const refunds: unknown[] = [];
  const fixture = refundFixture({ record: async (action) => void refunds.push(action) });
  const refund = defineCapability(
    {
      ...fixture.refund,
      rateLimit: fixedWindow({
        name: 'refund-per-customer',
        limit: options.refundsPerHour,
        windowSeconds: 3600,
        key: ({ context }) => ({ customer: (context.actor as { id: string }).id }),
        reason: 'one refund an hour',
      }),
      ...(options.budget === undefined
        ? {}
        : {
            budget: {
              amountOf: ({ arguments: args }: { arguments: { amount: number } }) => args.amount,
              limit: options.budget,
              per: 'actor',
              window: 86_400,
              reason: 'refund budget exhausted',
            },
          }),
    } as CapabilityDefinition,
    fixture.refund.executor as never,
  );
  const items = new InMemoryReviewItemStore();
  const claims = new InMemoryExecutionClaimStore();
  // One instant for the whole test: no window rolls over between the runs.
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
        rateLimits: options.rateLimits,
        budgets: new InMemoryBudgetStore(),
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
  /** customer:72 asks for a refund of `amount` EUR of order 1002, and staff approve it: the approved item's id. */
  const approved = async (toolCallId: string, amount = 120) => {
    await moduleRef
      .get(ActionContextStore)
      .run(fixture.contextOf('customer:72', 'conversation-1'), () =>
        moduleRef
          .get(VerdictService)
          .execute({ capability: 'orders.refund', arguments: { orderId: 1002, amount }, toolCallId }),
      );
    const itemId = (await reviews.pending({ tenant: 'acme', capability: 'orders.refund' })).at(-1)!.itemId;
    await reviews.approve(itemId, { id: 'staff:7', context: fixture.contextOf('staff:7') });
    return itemId;
  };
  const outcome = async (itemId: string) => ({
    status: (await items.find(itemId))?.status,
    refunds: refunds.length,
    events,
    unresolvedClaims: (await claims.unresolved()).length,
  });
  return { moduleRef, worker: moduleRef.get(DeferredExecutionWorker), approved, outcome };
}

describe('a duplicate delivery of an approved item while the first run stands between its rate limit and its claim', () => {
  it('attack: the duplicate is refused at the item claim without settling; the approved refund runs once and is settled executed', async () => {
    const rateLimits = new HeldFirstUnit();
    const lane = await bootLane({ rateLimits, refundsPerHour: 1 });
    const itemId = await lane.approved('call_1');

    const first = lane.worker.run({ itemId });
    await rateLimits.spent; // the first run used the customer's only refund of the hour
    const duplicate = await lane.worker.run({ itemId });
    rateLimits.release();

    expect({ first: (await first).executed, duplicate: duplicate.executed, ...(await lane.outcome(itemId)) }).toEqual({
      first: true,
      duplicate: false,
      status: 'executed',
      refunds: 1,
      events: ['executed'],
      unresolvedClaims: 0,
    });
    await lane.moduleRef.close();
  });

  it('utility: an item whose customer used the hour’s refund on another item is still settled refused, and reported once', async () => {
    const lane = await bootLane({ rateLimits: new InMemoryRateLimitStore(), refundsPerHour: 1 });
    const earlier = await lane.approved('call_1');
    const later = await lane.approved('call_2');

    expect((await lane.worker.run({ itemId: earlier })).executed).toBe(true);
    expect((await lane.worker.run({ itemId: later })).executed).toBe(false);
    // Delivered again: the refused item stays refused, nothing runs and nothing is reported twice.
    expect((await lane.worker.run({ itemId: later })).executed).toBe(false);

    expect(await lane.outcome(later)).toEqual({
      status: 'refused',
      refunds: 1,
      events: ['executed', 'refused'],
      unresolvedClaims: 0,
    });
    await lane.moduleRef.close();
  });

  it('utility: an item refused by the spend budget after its rate limit is still settled refused', async () => {
    const lane = await bootLane({ rateLimits: new InMemoryRateLimitStore(), refundsPerHour: 10, budget: 200 });
    const earlier = await lane.approved('call_1', 150);
    const later = await lane.approved('call_2', 120);

    expect((await lane.worker.run({ itemId: earlier })).executed).toBe(true);
    expect((await lane.worker.run({ itemId: later })).executed).toBe(false);

    expect(await lane.outcome(later)).toEqual({
      status: 'refused',
      refunds: 1,
      events: ['executed', 'refused'],
      unresolvedClaims: 0,
    });
    await lane.moduleRef.close();
  });

  it('utility: a duplicate delivered after the item ran is refused, and nothing runs a second time', async () => {
    const lane = await bootLane({ rateLimits: new InMemoryRateLimitStore(), refundsPerHour: 5 });
    const itemId = await lane.approved('call_1');

    expect((await lane.worker.run({ itemId })).executed).toBe(true);
    expect((await lane.worker.run({ itemId })).executed).toBe(false);

    expect(await lane.outcome(itemId)).toEqual({
      status: 'executed',
      refunds: 1,
      events: ['executed'],
      unresolvedClaims: 0,
    });
    await lane.moduleRef.close();
  });

  it('utility: a rate-limit store fault fails the job and leaves the item to its retry, which runs it once', async () => {
    const lane = await bootLane({ rateLimits: new FirstConsumptionFails(), refundsPerHour: 1 });
    const itemId = await lane.approved('call_1');

    await expect(lane.worker.run({ itemId })).rejects.toThrow('connection to the rate-limit store lost');
    expect(await lane.outcome(itemId)).toEqual({ status: 'approved', refunds: 0, events: [], unresolvedClaims: 0 });

    expect((await lane.worker.run({ itemId })).executed).toBe(true);
    expect(await lane.outcome(itemId)).toEqual({
      status: 'executed',
      refunds: 1,
      events: ['executed'],
      unresolvedClaims: 0,
    });
    await lane.moduleRef.close();
  });
});
