import { describe } from '@jest/globals';
import { BullModule, getQueueToken } from '@nestjs/bullmq';
import { Test } from '@nestjs/testing';
import type { Queue } from 'bullmq';
import { InProcessDeferredQueue } from '@verdict/nestjs';
import { BullMqDeferredQueue, VERDICT_DEFERRED_QUEUE, VerdictBullMqModule } from '@verdict/nestjs/bullmq';
import { describeDeferredQueueContract } from '@verdict/nestjs/testing';
import { testRedisUrl, uniqueRedisPrefix } from '@verdict/testing-kit';

describeDeferredQueueContract('in-process', async () => ({
  queue: new InProcessDeferredQueue(),
  close: async () => {},
}));

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
