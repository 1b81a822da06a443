import { describe, expect, it } from '@jest/globals';
import {
  type DeferredEnqueueOptions,
  type DeferredJob,
  InProcessDeferredQueue,
  VerdictConfigurationError,
  reviewItemFingerprint,
} from '@verdict/nestjs';
import { bootReviewLane } from './review-lane.fixture.js';

/** An in-process queue whose next enqueue fails: Redis went away after the approval committed. */
class LosingQueue extends InProcessDeferredQueue {
  loseNext = false;
  readonly requeues: boolean[] = [];

  override async enqueue(job: DeferredJob, options?: DeferredEnqueueOptions): Promise<void> {
    if (this.loseNext) {
      this.loseNext = false;
      throw new Error('Connection is closed.');
    }
    this.requeues.push(options?.requeue === true);
    await super.enqueue(job);
  }
}

async function setup({ work = true }: { work?: boolean } = {}) {
  const lane = await bootReviewLane({ queue: new LosingQueue({ attempts: 1 }), work });
  const itemId = await lane.propose();
  return { ...lane, itemId, staff: lane.reviewer('staff:7'), operator: { by: 'operator:7' } };
}

describe('ReviewService.requeue', () => {
  it('queues an approved item whose job was lost: it executes once; a requeue of the executed item executes nothing', async () => {
    const { reviews, items, queue, evidence, refunds, itemId, staff, operator } = await setup();
    queue.loseNext = true;
    await expect(reviews.approve(itemId, staff)).rejects.toThrow('Connection is closed.');
    await queue.idle();
    expect({ status: (await items.find(itemId))?.status, refunds: refunds.length }).toEqual({
      status: 'approved',
      refunds: 0,
    });

    expect(await reviews.requeue(itemId, operator)).toEqual({ outcome: 'requeued', itemId });
    await queue.idle();
    expect(refunds).toHaveLength(1);
    expect((await items.find(itemId))?.status).toBe('executed');

    expect(await reviews.requeue(itemId, operator)).toEqual({ outcome: 'invalid_state', itemId });
    await queue.idle();
    expect(refunds).toHaveLength(1);
    expect(queue.requeues).toEqual([true]);
    const requeues = evidence.decisions().filter((record) => record.approvalPhase === 'review_requeue');
    expect(requeues.map((record) => [record.toolKind, record.disposition, record.approvalOutcome])).toEqual([
      ['operator', 'permit', 'requeued'],
      ['operator', 'deny', 'invalid_state'],
    ]);
    expect(requeues.every((record) => record.receiptFingerprint === reviewItemFingerprint(itemId))).toBe(true);
    expect(JSON.stringify(evidence.decisions())).not.toContain(itemId);
  });

  it('queued again while its first job is still waiting, the item still executes once (the claim decides)', async () => {
    const { reviews, queue, refunds, itemId, staff, startWorker, operator } = await setup({ work: false });
    expect(await reviews.approve(itemId, staff)).toMatchObject({ outcome: 'approved' });
    expect(await reviews.requeue(itemId, operator)).toMatchObject({ outcome: 'requeued' });
    expect(await reviews.requeue(itemId, operator)).toMatchObject({ outcome: 'requeued' });
    await startWorker();
    await queue.idle();
    expect(refunds).toHaveLength(1);
  });

  it('queues nothing for a pending, rejected or unknown item, nor without an operator id', async () => {
    const { reviews, queue, refunds, itemId, staff, operator } = await setup();
    expect(await reviews.requeue(itemId, operator)).toMatchObject({ outcome: 'invalid_state' });
    expect(await reviews.requeue('rvw_forged', operator)).toMatchObject({ outcome: 'not_found' });
    await expect(reviews.requeue(itemId, { by: ' ' })).rejects.toBeInstanceOf(VerdictConfigurationError);
    await reviews.reject(itemId, staff);
    expect(await reviews.requeue(itemId, operator)).toMatchObject({ outcome: 'invalid_state' });
    await queue.idle();
    expect({ refunds: refunds.length, jobs: queue.requeues }).toEqual({ refunds: 0, jobs: [] });
  });
});
