import { EventEmitterModule } from '@nestjs/event-emitter';
import { Test } from '@nestjs/testing';
import {
  ActionContextStore,
  type AuthorizedAction,
  type ContainmentOptions,
  DeferredExecutionWorker,
  InMemoryEvidenceRecorder,
  InMemoryExecutionClaimStore,
  InMemoryReviewItemStore,
  InProcessDeferredQueue,
  ReviewService,
  VerdictModule,
  VerdictService,
} from '@verdict/nestjs';
import { type RefundActor, type RefundArguments, type RefundOrder, refundFixture } from '@verdict/testing-kit';

/**
 * One process's review lane over the refund fixture, for specs of the reviewer queue: in-memory items and
 * claims, the given evidence recorder and in-process queue (one attempt per job), and the module's `actorKey`
 * equal to the lane's, so operators name actors as the lane binds them (unless `moduleActorKey` gives the module
 * another).
 */
export async function bootReviewLane<Q extends InProcessDeferredQueue = InProcessDeferredQueue>(
  options: {
    readonly evidence?: InMemoryEvidenceRecorder;
    readonly queue?: Q;
    readonly work?: boolean;
    readonly containment?: ContainmentOptions;
    /** The module's `actorKey` (what operators name actors by), when it is not the lane's. */
    readonly moduleActorKey?: (actor: RefundActor) => string;
    /** How many of the executor's first runs throw before refunding (a provider timeout). Default: none. */
    readonly failingRuns?: number;
  } = {},
) {
  const refunds: AuthorizedAction<RefundArguments, RefundOrder>[] = [];
  /** The executor's runs that threw (`failingRuns`): nothing was refunded. */
  const timeouts: AuthorizedAction<RefundArguments, RefundOrder>[] = [];
  const fixture = refundFixture({
    record: async (action) => {
      if (timeouts.length >= (options.failingRuns ?? 0)) return void refunds.push(action);
      timeouts.push(action);
      throw new Error('provider timeout');
    },
  });
  const items = new InMemoryReviewItemStore();
  const queue = (options.queue ?? new InProcessDeferredQueue({ attempts: 1 })) as Q;
  const evidence = options.evidence ?? new InMemoryEvidenceRecorder();
  const moduleRef = await Test.createTestingModule({
    imports: [
      EventEmitterModule.forRoot(),
      VerdictModule.forRoot({
        abilityFactory: fixture.abilityFactory,
        capabilities: [fixture.refund],
        evidence,
        executionClaims: new InMemoryExecutionClaimStore(),
        actorKey: options.moduleActorKey ?? fixture.actorKey,
        containment: options.containment,
        review: { items, queue, rehydrate: fixture.rehydrate, actorKey: fixture.actorKey, work: options.work },
      }),
    ],
  }).compile();
  await moduleRef.init();
  const reviews = moduleRef.get(ReviewService);
  /** customer:72 asks for a refund of order 1002 in conversation-1; answers the id of the item just parked. */
  const propose = async (toolCallId = 'call_1') => {
    await moduleRef
      .get(ActionContextStore)
      .run(fixture.contextOf('customer:72', 'conversation-1'), () =>
        moduleRef
          .get(VerdictService)
          .execute({ capability: 'orders.refund', arguments: { orderId: 1002, amount: 120 }, toolCallId }),
      );
    // Oldest first: the item just parked is the last one.
    return (await reviews.pending({ tenant: 'acme', capability: 'orders.refund' })).at(-1)!.itemId;
  };
  const reviewer = (id: string) => ({ id, context: fixture.contextOf(id) });
  /** Starts working the queue of a `work: false` lane. */
  const startWorker = () => {
    const worker = moduleRef.get(DeferredExecutionWorker);
    return queue.work((job) => worker.run(job));
  };
  const statusOf = async (itemId: string) => (await items.find(itemId))?.status;
  return {
    moduleRef,
    fixture,
    reviews,
    items,
    queue,
    evidence,
    refunds,
    timeouts,
    propose,
    reviewer,
    startWorker,
    statusOf,
  };
}
