// A worker process of `startReviewLaneWorkers`: a whole Verdict application (TypeORM stores on the test
// database, BullMQ on the test Redis when given) running the refund fixture. Run as compiled JS (the pool
// refuses a build older than the sources), never imported.
import 'reflect-metadata';
import { BullModule } from '@nestjs/bullmq';
import { NestFactory } from '@nestjs/core';
import { Module, type DynamicModule } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  ActionContextStore,
  DeferredExecutionWorker,
  type DeferredJobOutcome,
  type DeferredQueue,
  InProcessDeferredQueue,
  ReviewService,
  VerdictModule,
  VerdictService,
} from '@verdict/nestjs';
import { BullMqDeferredQueue, VerdictBullMqModule } from '@verdict/nestjs/bullmq';
import { TypeOrmExecutionClaimStore, TypeOrmReviewItemStore, verdictEntities } from '@verdict/nestjs/typeorm';
import { refundFixture } from '../review-lane/refund-fixture.js';
import type { ReviewLaneReply, ReviewLaneRequest, ReviewLaneWorkerInit } from './review-lane-protocol.js';
import { serveParent } from './worker-runtime.js';

serveParent<ReviewLaneWorkerInit, ReviewLaneRequest, ReviewLaneReply>(async (init) => {
  const dataSource = await new DataSource({
    ...init.dataSource,
    entities: verdictEntities,
    migrations: [],
  }).initialize();
  const placeholders = dataSource.options.type === 'postgres' ? '$1, $2' : '?, ?';
  let executorEntries = 0;
  let entered: () => void = () => {};
  const executorEntered = new Promise<void>((resolve) => (entered = resolve));
  const fixture = refundFixture(
    {
      record: async (action) => {
        await dataSource.query(`INSERT INTO ${init.ledgerTable} (claim_id, amount) VALUES (${placeholders})`, [
          action.executionIdentity,
          action.arguments.amount,
        ]);
      },
    },
    async () => {
      executorEntries++;
      entered();
      // Killed here with SIGKILL: the claim was admitted, the effect never happened.
      if (init.blockExecutor) await new Promise<never>(() => {});
    },
  );
  const verdict = (queue: DeferredQueue) => ({
    abilityFactory: fixture.abilityFactory,
    capabilities: [fixture.refund],
    executionClaims: new TypeOrmExecutionClaimStore(dataSource),
    review: {
      items: new TypeOrmReviewItemStore(dataSource),
      queue,
      rehydrate: fixture.rehydrate,
      actorKey: fixture.actorKey,
      work: false,
    },
  });
  const imports: DynamicModule[] =
    init.redis === null
      ? [VerdictModule.forRoot(verdict(new InProcessDeferredQueue()))]
      : [
          BullModule.forRoot({ connection: { url: init.redis.url }, prefix: init.redis.prefix }),
          VerdictBullMqModule.register({
            // A killed worker's job comes back once its lock expires: the stalled check moves it to the wait list.
            worker: {
              lockDuration: init.redis.lockDurationMs,
              stalledInterval: init.redis.lockDurationMs,
              concurrency: 4,
            },
          }),
          VerdictModule.forRootAsync({ inject: [BullMqDeferredQueue], useFactory: verdict }),
        ];
  @Module({ imports })
  class ReviewLaneWorkerModule {}
  const app = await NestFactory.createApplicationContext(ReviewLaneWorkerModule, { logger: ['error'] });
  const contexts = app.get(ActionContextStore);
  const outcomes: DeferredJobOutcome[] = [];

  const handle = async (request: ReviewLaneRequest): Promise<ReviewLaneReply> => {
    switch (request.kind) {
      case 'propose': {
        const proposal = { capability: 'orders.refund', arguments: { orderId: 1002, amount: request.amount } };
        const result = await contexts.run(fixture.contextOf('customer:72'), () =>
          app.get(VerdictService).execute({ ...proposal, toolCallId: request.toolCallId }),
        );
        if (result.decision.disposition !== 'require_review') throw new Error(`not parked: ${result.decision.reason}`);
        const pending = await app.get(ReviewService).pending({ tenant: 'acme' });
        const item = pending.find((candidate) => candidate.description?.startsWith(`Refund ${request.amount} EUR`));
        return { itemId: item!.itemId };
      }
      case 'decide': {
        const reviewer = { id: request.reviewerId, context: fixture.contextOf('staff:7') };
        return app.get(ReviewService)[request.verdict](request.itemId, reviewer);
      }
      case 'startWorking': {
        const worker = app.get(DeferredExecutionWorker);
        await app.get(BullMqDeferredQueue).work(async (job) => {
          const outcome = await worker.run(job);
          outcomes.push(outcome);
          return outcome;
        });
        return { ok: true };
      }
      case 'awaitExecutor':
        await executorEntered;
        return { ok: true };
      case 'report':
        return { executorEntries, outcomes };
    }
  };

  return {
    handle,
    async prepare(request) {
      // A round trip on the pool right before the barrier: the racing statement finds a live, idle connection.
      await dataSource.query('SELECT 1');
      return () => handle(request);
    },
    async close() {
      await app.close();
      await dataSource.destroy();
    },
  };
});
