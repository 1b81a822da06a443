import { BullModule } from '@nestjs/bullmq';
import { type DynamicModule, Module } from '@nestjs/common';
import { BullMqDeferredQueue } from './bullmq-deferred-queue.js';
import { VERDICT_DEFERRED_QUEUE } from './constants.js';
import { deferredJobProcessor } from './deferred-job.processor.js';
import { VERDICT_BULLMQ_OPTIONS, type VerdictBullMqOptions } from './verdict-bullmq-options.interface.js';

/**
 * The review lane on BullMQ (docs/review-lane.md): registers Verdict's queue with `@nestjs/bullmq` (the
 * connection and key `prefix` come from your `BullModule.forRoot`), provides {@link BullMqDeferredQueue}
 * globally, and — unless `worker: false` — this process's worker for it.
 *
 * @example
 * imports: [
 *   BullModule.forRoot({ connection: { url: 'redis://127.0.0.1:6379' }, prefix: 'shop' }),
 *   VerdictBullMqModule.register({ worker: { concurrency: 4 } }),
 *   VerdictModule.forRootAsync({
 *     inject: [BullMqDeferredQueue, DataSource],
 *     useFactory: (queue: BullMqDeferredQueue, dataSource: DataSource) => ({
 *       abilityFactory,
 *       executionClaims: new TypeOrmExecutionClaimStore(dataSource),
 *       review: { items: new TypeOrmReviewItemStore(dataSource), queue, rehydrate: (requester) => users.contextOf(requester) },
 *     }),
 *   }),
 * ]
 */
@Module({})
export class VerdictBullMqModule {
  static register(options: VerdictBullMqOptions = {}): DynamicModule {
    const processors = options.worker === false ? [] : [deferredJobProcessor(options.worker ?? {})];
    return {
      module: VerdictBullMqModule,
      global: true,
      imports: [BullModule.registerQueue({ name: VERDICT_DEFERRED_QUEUE })],
      providers: [{ provide: VERDICT_BULLMQ_OPTIONS, useValue: options }, BullMqDeferredQueue, ...processors],
      exports: [BullMqDeferredQueue],
    };
  }
}
