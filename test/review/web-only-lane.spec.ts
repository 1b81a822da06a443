import { describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import {
  ActionContextStore,
  type AuthorizedAction,
  DeferredExecutionWorker,
  type DeferredJob,
  type DeferredQueue,
  InMemoryExecutionClaimStore,
  InMemoryReviewItemStore,
  type ReviewLaneOptions,
  ReviewService,
  VerdictConfigurationError,
  VerdictModule,
  VerdictService,
} from '@verdict/nestjs';
import { type RefundArguments, type RefundOrder, refundFixture } from '@verdict/testing-kit';

/** The web process's view of a shared queue (BullMQ in production): it adds jobs, and never works them here. */
class RecordingQueue implements DeferredQueue {
  readonly jobs: DeferredJob[] = [];
  worked = false;
  async enqueue(job: DeferredJob): Promise<void> {
    this.jobs.push(job);
  }
  async work(): Promise<void> {
    this.worked = true;
  }
  async close(): Promise<void> {}
}

// Compile-time checks (`npx tsc -p tsconfig.json` type-checks specs): the documented web-only lane needs no
// `rehydrate` and no cast; a lane that works the queue (`work` absent or `true`) cannot leave `rehydrate` out.
declare const items: InMemoryReviewItemStore;
declare const queue: DeferredQueue;
declare const rehydrate: ReturnType<typeof refundFixture>['rehydrate'];
declare const role: boolean;
export const laneTypeChecks = (): ReviewLaneOptions[] => [
  { items, queue, work: false },
  { items, queue, rehydrate, work: false },
  { items, queue, rehydrate },
  { items, queue, rehydrate, work: true },
  { items, queue, rehydrate, work: role },
  // @ts-expect-error a working lane (work absent) needs rehydrate
  { items, queue },
  // @ts-expect-error a working lane (work: true) needs rehydrate
  { items, queue, work: true },
  // @ts-expect-error a lane that may work (work: boolean) needs rehydrate
  { items, queue, work: role },
];

/** One process with the refund fixture's reviewed capability, booted with the given lane and claim store. */
function boot(lane: ReviewLaneOptions, claims: boolean) {
  const refunds: AuthorizedAction<RefundArguments, RefundOrder>[] = [];
  const fixture = refundFixture({ record: async (action) => void refunds.push(action) });
  const moduleRef = Test.createTestingModule({
    imports: [
      VerdictModule.forRoot({
        abilityFactory: fixture.abilityFactory,
        capabilities: [fixture.refund],
        actorKey: fixture.actorKey,
        ...(claims ? { executionClaims: new InMemoryExecutionClaimStore() } : {}),
        review: lane,
      }),
    ],
  })
    .compile()
    .then(async (compiled) => {
      await compiled.init();
      return compiled;
    });
  return { fixture, refunds, moduleRef };
}

describe('a web-only review lane (work: false)', () => {
  it('boots with the documented options, without rehydrate or an execution-claim store, and parks a proposal', async () => {
    const items = new InMemoryReviewItemStore();
    const queue = new RecordingQueue();
    const { fixture, refunds, moduleRef: booting } = boot({ items, queue, work: false }, false);
    const moduleRef = await booting;
    const result = await moduleRef
      .get(ActionContextStore)
      .run(fixture.contextOf('customer:72', 'conversation-1'), () =>
        moduleRef
          .get(VerdictService)
          .execute({ capability: 'orders.refund', arguments: { orderId: 1002, amount: 120 }, toolCallId: 'call_1' }),
      );
    expect({ executed: result.executed, disposition: result.decision.disposition }).toEqual({
      executed: false,
      disposition: 'require_review',
    });
    const reviews = moduleRef.get(ReviewService);
    const [pending] = await reviews.pending({ tenant: 'acme', capability: 'orders.refund' });
    expect(pending).toBeDefined();
    expect((await items.find(pending!.itemId))?.status).toBe('pending');
    // A reviewer decides in the web process too: the approved item is queued for a worker elsewhere.
    const approved = await reviews.approve(pending!.itemId, { id: 'staff:7', context: fixture.contextOf('staff:7') });
    expect(approved.outcome).toBe('approved');
    expect(queue.jobs).toEqual([{ itemId: pending!.itemId }]);
    expect(queue.worked).toBe(false);
    expect(refunds).toHaveLength(0);
    await moduleRef.close();
  });

  it.each([
    ['neither rehydrate nor an execution-claim store', false, false, /rehydrate.*execution-claim store/],
    ['no execution-claim store', true, false, /execution-claim store/],
    ['no rehydrate', false, true, /rehydrate/],
  ] as const)(
    'refuses to run a job it is handed by hand with %s: nothing executes, the item stays approved',
    async (_, withRehydrate, claims, message) => {
      const items = new InMemoryReviewItemStore();
      const queue = new RecordingQueue();
      const fixture = refundFixture({ record: async () => {} });
      const lane: ReviewLaneOptions = withRehydrate
        ? { items, queue, rehydrate: fixture.rehydrate, work: false }
        : { items, queue, work: false };
      const { fixture: booted, refunds, moduleRef: booting } = boot(lane, claims);
      const moduleRef = await booting;
      await moduleRef.get(ActionContextStore).run(booted.contextOf('customer:72', 'conversation-1'), () =>
        moduleRef.get(VerdictService).execute({
          capability: 'orders.refund',
          arguments: { orderId: 1002, amount: 120 },
          toolCallId: 'call_1',
        }),
      );
      const reviews = moduleRef.get(ReviewService);
      const [pending] = await reviews.pending({ tenant: 'acme', capability: 'orders.refund' });
      await reviews.approve(pending!.itemId, { id: 'staff:7', context: booted.contextOf('staff:7') });
      const run = moduleRef.get(DeferredExecutionWorker).run(queue.jobs[0]!);
      await expect(run).rejects.toThrow(VerdictConfigurationError);
      await expect(run).rejects.toThrow(message);
      expect(refunds).toHaveLength(0);
      expect((await items.find(pending!.itemId))?.status).toBe('approved');
      await moduleRef.close();
    },
  );
});

describe('a lane that works its queue (work absent or true)', () => {
  const lanes = (fixture: ReturnType<typeof refundFixture>) => ({
    items: new InMemoryReviewItemStore(),
    queue: new RecordingQueue(),
    rehydrate: fixture.rehydrate,
  });

  it.each([
    ['work absent, no rehydrate', { work: undefined, rehydrate: undefined }, true, /needs rehydrate/],
    ['work: true, no rehydrate', { work: true, rehydrate: undefined }, true, /needs rehydrate/],
    ['work absent, no execution-claim store', { work: undefined }, false, /execution-claim store/],
    ['work: true, no execution-claim store', { work: true }, false, /execution-claim store/],
    ['work absent, neither', { work: undefined, rehydrate: undefined }, false, /rehydrate|execution-claim store/],
  ] as const)('is refused at boot with %s', async (_, change, claims, message) => {
    const fixture = refundFixture({ record: async () => {} });
    // The cast is the attack: a working lane without rehydrate does not compile (see typeChecks above).
    const lane = { ...lanes(fixture), ...change } as unknown as ReviewLaneOptions;
    const { moduleRef } = boot(lane, claims);
    await expect(moduleRef).rejects.toThrow(VerdictConfigurationError);
    await expect(moduleRef).rejects.toThrow(message);
  });

  it('boots with rehydrate and an execution-claim store (control)', async () => {
    const fixture = refundFixture({ record: async () => {} });
    const queue = new RecordingQueue();
    const moduleRef = await boot({ ...lanes(fixture), queue }, true).moduleRef;
    expect(queue.worked).toBe(true);
    await moduleRef.close();
  });
});
