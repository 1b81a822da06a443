import { describe, expect, it } from '@jest/globals';
import { createMongoAbility } from '@casl/ability';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import {
  ActionContextStore,
  ApprovalService,
  ExecutionTargetPolicy,
  VerdictModule,
  VerdictService,
  atMostOnce,
  defineCapability,
  fixedWindow,
  fromProposal,
  requiresConfirmation,
} from '@verdict/nestjs';
import {
  TypeOrmApprovalReceiptStore,
  TypeOrmEvidenceRecorder,
  TypeOrmExecutionClaimStore,
  TypeOrmRateLimitStore,
  verdictEntities,
  verdictMigrations,
} from '@verdict/nestjs/typeorm';
import { countingStatements, databaseEngines, withDataSource } from '@verdict/testing-kit';
import type { DataSource } from 'typeorm';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };
const context = { actor: { id: 72 }, tenant: 'acme' };

/** A refund behind every gate: confirmation, a rate limit and an execution claim, all on `dataSource`. */
async function boot(dataSource: DataSource, recorder: TypeOrmEvidenceRecorder) {
  const refunds: string[] = [];
  const refund = defineCapability(
    {
      name: 'orders.refund',
      description: 'Refund an order',
      action: 'refund',
      subject: 'Order',
      arguments: z.object({ orderId: z.string() }),
      resolveTarget: fromProposal(({ arguments: args }) => ({ id: (args as { orderId: string }).orderId })),
      executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot<{ id: string }>({
        name: 'order-id',
        identity: (order) => order.id,
      }),
      requiresConfirmation: requiresConfirmation({
        bind: ({ arguments: args }) => ({ orderId: (args as { orderId: string }).orderId }),
        reason: 'money leaves',
      }),
      rateLimit: fixedWindow({ name: 'refunds', limit: 2, windowSeconds: 3600, key: () => 'acme', reason: 'budget' }),
      atMostOnce: atMostOnce<{ orderId: string }, { id: string }>({
        name: 'one-refund',
        key: (_envelope, order) => ({ order: order.id }),
      }),
    },
    async (action) => {
      refunds.push((action.target as { id: string }).id);
      return 'refunded';
    },
  );
  @Module({
    imports: [
      VerdictModule.forRoot({
        abilityFactory: { createForContext: () => createMongoAbility([{ action: 'refund', subject: 'Order' }]) },
        evidence: recorder,
        approvals: new TypeOrmApprovalReceiptStore(dataSource),
        rateLimits: new TypeOrmRateLimitStore(dataSource),
        executionClaims: new TypeOrmExecutionClaimStore(dataSource),
        capabilities: [refund],
      }),
    ],
  })
  class RefundsModule {}
  const app = await NestFactory.createApplicationContext(RefundsModule, { logger: false });
  await app.init();
  const verdict = app.get(VerdictService);
  const contexts = app.get(ActionContextStore);
  const call = (orderId: string, toolCallId: string, explicitApproval = false) =>
    contexts.run(context, () =>
      verdict.execute({ capability: 'orders.refund', arguments: { orderId }, toolCallId }, { explicitApproval }),
    );
  return { app, call, approvals: app.get(ApprovalService), refunds };
}

for (const engine of databaseEngines()) {
  describe(`evidence statements per call [${engine.name}]`, () => {
    it('writes a fully gated approved call’s evidence in two INSERTs, and a call that stops without mutating in one', async () => {
      await withDataSource(engine, SCHEMA, async (dataSource) => {
        const counter = await countingStatements(dataSource);
        const inserts: string[] = [];
        const counted = counter.dataSource;
        // Only evidence INSERTs are counted here: the gates' own statements are theirs to count.
        const logger = counted.logger as { logQuery: (query: string) => void };
        const logQuery = logger.logQuery.bind(logger);
        logger.logQuery = (query: string) => {
          if (/^INSERT INTO \S*verdict_decision_records/i.test(query)) inserts.push(query);
          logQuery(query);
        };
        const recorder = new TypeOrmEvidenceRecorder(counted, { seal: 'manual' });
        const { app, call, approvals, refunds } = await boot(counted, recorder);
        try {
          const toolCallId = `call_${randomUUID()}`;
          const asked = await call('ord_1', toolCallId);
          expect(asked.decision.disposition).toBe('require_confirmation');
          // Not executed, but a pending receipt was issued (a mutating step): written before it, and at its end.
          expect(inserts).toHaveLength(2);

          if (asked.executed) throw new Error('a call needing confirmation executed');
          await approvals.approve(asked.challenge!.receiptId, toolCallId, 'customer:72');
          inserts.length = 0;
          const executed = await call('ord_1', toolCallId, true);
          expect(executed.executed).toBe(true);
          expect(refunds).toEqual(['ord_1']);
          expect(inserts).toHaveLength(2); // before the first mutating gate, and after execution

          // Every stage still has its record: proposal, both validations, refresh, execution authorization,
          // rate limit, consumption and claim (plus the first run's and the approver's).
          const [{ records }] = await dataSource.query(
            `SELECT COUNT(*) AS records FROM verdict_decision_records WHERE correlation_id = ${engine.name === 'postgres' ? '$1' : '?'}`,
            [executed.correlationId],
          );
          expect(Number(records)).toBe(8);

          inserts.length = 0;
          const replay = await call('ord_1', toolCallId, true);
          expect(replay.executed).toBe(false);
          expect(inserts).toHaveLength(1); // refused, nothing mutated: one write, at its end
        } finally {
          await app.close();
          await counted.destroy();
        }
      });
    });
  });
}
