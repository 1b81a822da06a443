import { describe, expect, it } from '@jest/globals';
import { BullModule, getQueueToken } from '@nestjs/bullmq';
import { Test } from '@nestjs/testing';
import type { Queue } from 'bullmq';
import { DeferredQueueClosedError, InProcessDeferredQueue } from '@verdict/nestjs';
import { BullMqDeferredQueue, VERDICT_DEFERRED_QUEUE, VerdictBullMqModule } from '@verdict/nestjs/bullmq';
import { describeDeferredQueueContract } from '@verdict/nestjs/testing';
import { testRedisUrl, uniqueRedisPrefix } from '@verdict/testing-kit';

describeDeferredQueueContract('in-process', async () => ({
  queue: new InProcessDeferredQueue(),
  close: async () => {},
}));

/**
 * ADR 0207: Verdict closes the lane's queue at shutdown while the HTTP server still takes requests. A closed in-process
 * queue held a job enqueued then where nothing would run it, and the approval answered success; it now refuses it.
 */
describe('InProcessDeferredQueue once closed', () => {
  it('refuses a job with a DeferredQueueClosedError naming the item, and runs nothing', async () => {
    const queue = new InProcessDeferredQueue();
    const ran: string[] = [];
    await queue.work(async (job) => {
      ran.push(job.itemId);
      return { itemId: job.itemId, executed: true };
    });
    await queue.close();
    const error = await queue.enqueue({ itemId: 'rvw_late' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeferredQueueClosedError);
    expect(error).toMatchObject({ code: 'VERDICT_DEFERRED_QUEUE_CLOSED', context: { itemId: 'rvw_late' } });
    await queue.idle();
    expect(ran).toEqual([]);
  });

  it('control: worked again, it takes and runs jobs; before close it runs them', async () => {
    const queue = new InProcessDeferredQueue();
    const ran: string[] = [];
    const handler = async (job: { itemId: string }) => {
      ran.push(job.itemId);
      return { itemId: job.itemId, executed: true };
    };
    await queue.work(handler);
    await queue.enqueue({ itemId: 'rvw_before' });
    await queue.idle();
    await queue.close();
    await queue.work(handler);
    await queue.enqueue({ itemId: 'rvw_reopened' });
    await queue.idle();
    expect(ran).toEqual(['rvw_before', 'rvw_reopened']);
  });
});

const redis = testRedisUrl();
if (redis === undefined) describe.skip('DeferredQueue contract [bullmq] (VERDICT_TEST_REDIS_URL is not set)', () => {});
else
  describeDeferredQueueContract('bullmq', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [
        BullModule.forRoot({ connection: { url: redis }, prefix: uniqueRedisPrefix() }),
        VerdictBullMqModule.register({ jobs: { attempts: 2, backoff: { type: 'fixed', delay: 1 } } }),
      ],
    }).compile();
    await moduleRef.init();
    const queue = moduleRef.get(BullMqDeferredQueue);
    return {
      queue,
      close: async () => {
        await queue.close();
        await moduleRef.get<Queue>(getQueueToken(VERDICT_DEFERRED_QUEUE)).obliterate({ force: true });
        await moduleRef.close();
      },
    };
  });
