import { describe, expect, it } from '@jest/globals';
import { EventEmitter2 } from '@nestjs/event-emitter';
import {
  ActionContextStore,
  DEFERRED_CLAIM_POLICY,
  ExecutionClaimsService,
  type InMemoryReviewItemStore,
  InProcessDeferredQueue,
  ReviewedOperationExecuted,
  ReviewedOperationRefused,
  VerdictService,
} from '@verdict/nestjs';
import { bootReviewLane } from './review-lane.fixture.js';

type Lane = Awaited<ReturnType<typeof bootReviewLane>>;

/** The item store's next `times` settles as `outcome` throw (the database was briefly unavailable). */
function failSettles(items: InMemoryReviewItemStore, outcome: 'executed' | 'refused', times = 1): void {
  const settle = items.settle.bind(items);
  let left = times;
  items.settle = async (settlement) => {
    if (settlement.outcome !== outcome || left === 0) return settle(settlement);
    left--;
    throw new Error('database unavailable');
  };
}

/** The review events the conversation would be told, in order. */
function reportsOf(lane: Lane): string[] {
  const reports: string[] = [];
  const emitter = lane.moduleRef.get(EventEmitter2);
  emitter.on(ReviewedOperationExecuted.event, () => reports.push('executed'));
  emitter.on(ReviewedOperationRefused.event, () => reports.push('refused'));
  return reports;
}

/** The requester's model proposes the same refund again: what it is told. */
async function reproposed(lane: Lane) {
  const { moduleRef, fixture } = lane;
  const result = await moduleRef
    .get(ActionContextStore)
    .run(fixture.contextOf('customer:72', 'conversation-1'), () =>
      moduleRef
        .get(VerdictService)
        .execute({ capability: 'orders.refund', arguments: { orderId: 1002, amount: 120 }, toolCallId: 'call_1' }),
    );
  return { disposition: result.decision.disposition, reason: result.decision.reason };
}

const ALREADY_EXECUTED = { disposition: 'deny', reason: 'this reviewed operation was already executed' };

/** The item's own claim, as an operator lists it. */
async function itemClaimOf(lane: Lane) {
  const claims = await lane.moduleRef.get(ExecutionClaimsService).unresolved();
  return claims.find((claim) => claim.policy === DEFERRED_CLAIM_POLICY)!;
}

describe('a reviewed operation that ran is settled executed, whichever run finds it so', () => {
  it('attack: its settle failed once after the executor ran: the queue retries the job, which settles and reports it', async () => {
    const lane = await bootReviewLane({ queue: new InProcessDeferredQueue({ attempts: 2 }) });
    const reports = reportsOf(lane);
    const itemId = await lane.propose();
    failSettles(lane.items, 'executed');

    await lane.reviews.approve(itemId, lane.reviewer('staff:7'));
    await lane.queue.idle();

    expect(await lane.statusOf(itemId)).toBe('executed');
    expect(reports).toEqual(['executed']);
    expect(lane.refunds).toHaveLength(1);
    expect(lane.queue.failed).toHaveLength(0);
    expect((await lane.reviews.requeue(itemId, { by: 'operator:7' })).outcome).toBe('invalid_state');
    await lane.moduleRef.close();
  });

  it('attack: with no attempt left the job fails; the operator’s re-queue settles the item without running it again', async () => {
    const lane = await bootReviewLane();
    const reports = reportsOf(lane);
    const itemId = await lane.propose();
    failSettles(lane.items, 'executed');
    await lane.reviews.approve(itemId, lane.reviewer('staff:7'));
    await lane.queue.idle();
    expect({ failed: lane.queue.failed.length, status: await lane.statusOf(itemId) }).toEqual({
      failed: 1,
      status: 'approved',
    });

    expect((await lane.reviews.requeue(itemId, { by: 'operator:7' })).outcome).toBe('requeued');
    await lane.queue.idle();

    expect(await lane.statusOf(itemId)).toBe('executed');
    expect(reports).toEqual(['executed']);
    expect(lane.refunds).toHaveLength(1);
    expect((await lane.reviews.requeue(itemId, { by: 'operator:7' })).outcome).toBe('invalid_state');
    expect(await reproposed(lane)).toEqual(ALREADY_EXECUTED);
    await lane.moduleRef.close();
  });

  it('attack: the executor threw and an operator resolved its claim completed: a re-queue settles it executed, without running it', async () => {
    const lane = await bootReviewLane({ failingRuns: 1 });
    const reports = reportsOf(lane);
    const itemId = await lane.propose();
    await lane.reviews.approve(itemId, lane.reviewer('staff:7'));
    await lane.queue.idle();
    const claim = await itemClaimOf(lane);
    expect(claim.status).toBe('indeterminate');
    const claims = lane.moduleRef.get(ExecutionClaimsService);
    await claims.resolve(claim.id, 'completed', 'operator:7', 'the PSP shows the refund');

    expect((await lane.reviews.requeue(itemId, { by: 'operator:7' })).outcome).toBe('requeued');
    await lane.queue.idle();

    expect(await lane.statusOf(itemId)).toBe('executed');
    expect(reports).toEqual(['executed']);
    expect({ runs: lane.timeouts.length + lane.refunds.length }).toEqual({ runs: 1 });
    expect(await reproposed(lane)).toEqual(ALREADY_EXECUTED);
    await lane.moduleRef.close();
  });

  it('utility: resolved retryable instead, the re-queue runs it once more and settles it executed', async () => {
    const lane = await bootReviewLane({ failingRuns: 1 });
    const reports = reportsOf(lane);
    const itemId = await lane.propose();
    await lane.reviews.approve(itemId, lane.reviewer('staff:7'));
    await lane.queue.idle();
    const claims = lane.moduleRef.get(ExecutionClaimsService);
    await claims.resolve((await itemClaimOf(lane)).id, 'retryable', 'operator:7', 'the PSP never saw it');

    await lane.reviews.requeue(itemId, { by: 'operator:7' });
    await lane.queue.idle();

    expect(await lane.statusOf(itemId)).toBe('executed');
    expect(reports).toEqual(['executed']);
    expect(lane.refunds).toHaveLength(1);
    await lane.moduleRef.close();
  });

  it('utility: a refused item stays refused: later runs never read its completed claim as a run', async () => {
    const lane = await bootReviewLane({ work: false, queue: new InProcessDeferredQueue({ attempts: 2 }) });
    const reports = reportsOf(lane);
    const itemId = await lane.propose();
    await lane.reviews.approve(itemId, lane.reviewer('staff:7'));
    lane.fixture.bumpVersion(1002); // the order changed after review: the run is denied at step 10
    await lane.startWorker();
    await lane.queue.idle();
    await lane.queue.enqueue({ itemId }); // a duplicate delivery
    await lane.queue.idle();

    expect(await lane.statusOf(itemId)).toBe('refused');
    expect(reports).toEqual(['refused']);
    expect(lane.refunds).toHaveLength(0);
    await lane.moduleRef.close();
  });

  it('attack: a refusal whose settle failed is never settled executed; once the operator releases its claim it is refused', async () => {
    const lane = await bootReviewLane({ work: false, queue: new InProcessDeferredQueue({ attempts: 2 }) });
    const reports = reportsOf(lane);
    const itemId = await lane.propose();
    await lane.reviews.approve(itemId, lane.reviewer('staff:7'));
    lane.fixture.bumpVersion(1002);
    failSettles(lane.items, 'refused');
    await lane.startWorker();
    await lane.queue.idle();

    // The retry finds the claim the refused run took, not a completed one: nothing says the operation ran.
    expect(await lane.statusOf(itemId)).toBe('approved');
    expect(reports).toEqual([]);
    const claim = await itemClaimOf(lane);
    expect(claim.status).toBe('claimed');
    const claims = lane.moduleRef.get(ExecutionClaimsService);
    await claims.resolve(claim.id, 'retryable', 'operator:7', 'the refund never ran', true);
    await lane.reviews.requeue(itemId, { by: 'operator:7' });
    await lane.queue.idle();

    expect(await lane.statusOf(itemId)).toBe('refused');
    expect(reports).toEqual(['refused']);
    expect(lane.refunds).toHaveLength(0);
    await lane.moduleRef.close();
  });
});
