// A fully gated approved call (confirmation + rate limit + execution claim + TypeORM evidence, all stores on
// one DataSource) at 1 and 20 concurrent calls, next to a baseline through the same DataSource in the same
// run: as many bare single-row INSERTs, one after another, as the call sent statements. Target (issue 13,
// item 8): the call writes its evidence in at most two statements (one before the first mutating gate, one
// after execution). For comparison, the same call with a recorder that has no `recordDecisions` (the
// trail falls back to one INSERT per record, as every call did before the batching).
//
// Per call the bench counts every statement the DataSource sent while the approved calls ran and the evidence
// INSERTs among them; the recorder seals manually, after the phase, and that seal's statements are shown
// amortized per call (the background seal's contention is bench/evidence-chain.bench.js's subject). Each
// approved call's receipt was issued and approved before the timed phase; each call has its own order,
// claim and rate-limit bucket, so no two calls wait on one row.
//
// Needs VERDICT_TEST_POSTGRES_URL (and optionally VERDICT_TEST_MARIADB_URL); an engine without its URL is skipped.
import 'reflect-metadata';
import { createMongoAbility } from '@casl/ability';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { DataSource } from 'typeorm';
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
} from '@verdict/nestjs/typeorm';
import { forEachEngine } from './database-bench.js';
import { table, target } from './report.js';
import { fmt, percentile } from './stats.js';

const CALLS = Number(process.env.BENCH_GATED_CALLS ?? 400);
const CONCURRENCY = [1, 20];
const context = { actor: { id: 72 }, tenant: 'acme' };

const refund = defineCapability(
  {
    name: 'orders.refund',
    description: 'Refund an order',
    action: 'refund',
    subject: 'Order',
    arguments: z.object({ orderId: z.string() }),
    resolveTarget: fromProposal(({ arguments: args }) => ({ id: args.orderId, tenant: 'acme' })),
    executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot({ name: 'order-id', identity: (order) => order.id }),
    requiresConfirmation: requiresConfirmation({ bind: ({ arguments: args }) => args, reason: 'money leaves' }),
    rateLimit: fixedWindow({
      name: 'refunds',
      limit: 1_000_000_000,
      windowSeconds: 3600,
      key: ({ arguments: args }) => ({ order: args.orderId }),
      reason: 'refund budget',
    }),
    atMostOnce: atMostOnce({ name: 'one-refund', key: (_envelope, order) => ({ order: order.id }) }),
  },
  async (action) => ({ refunded: action.target.id }),
);

/** What the DataSource sent: every statement, and the evidence INSERTs among them. */
function statementLogger() {
  const counts = { all: 0, evidence: 0 };
  const logger = {
    logQuery: (query) => {
      counts.all++;
      if (/^INSERT INTO \S*verdict_decision_records/i.test(query)) counts.evidence++;
    },
    logQueryError: () => {},
    logQuerySlow: () => {},
    logSchemaBuild: () => {},
    logMigration: () => {},
    log: () => {},
  };
  return { counts, logger, reset: () => Object.assign(counts, { all: 0, evidence: 0 }) };
}

/** Without `recordDecisions`: the trail writes one INSERT per record. */
class PerRecordRecorder {
  constructor(inner) {
    this.inner = inner;
  }
  recordDecision(record) {
    return this.inner.recordDecision(record);
  }
  recordRelease(record) {
    return this.inner.recordRelease(record);
  }
}

async function boot(dataSource, evidence) {
  class BenchModule {}
  Module({
    imports: [
      VerdictModule.forRoot({
        abilityFactory: { createForContext: () => createMongoAbility([{ action: 'refund', subject: 'Order' }]) },
        evidence,
        approvals: new TypeOrmApprovalReceiptStore(dataSource),
        rateLimits: new TypeOrmRateLimitStore(dataSource),
        executionClaims: new TypeOrmExecutionClaimStore(dataSource),
        capabilities: [refund],
      }),
    ],
  })(BenchModule);
  const app = await NestFactory.createApplicationContext(BenchModule, { logger: false });
  await app.init();
  return app;
}

/** Runs `calls` in `concurrency` loops; each call's latency (ms). */
async function timed(calls, concurrency) {
  const samples = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < calls.length) {
        const call = calls[next++];
        const start = performance.now();
        await call();
        samples.push(performance.now() - start);
      }
    }),
  );
  return samples;
}

const rows = [];
await forEachEngine(async (engine, admin) => {
  const statements = statementLogger();
  const dataSource = await new DataSource({
    ...admin.options,
    migrations: [],
    poolSize: 25,
    logger: statements.logger,
  }).initialize();
  const p = (i) => (engine.name === 'postgres' ? `$${i}` : '?');
  await dataSource.query('CREATE TABLE bench_rows (id varchar(64) PRIMARY KEY, v varchar(64))');
  const batched = new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' });
  try {
    for (const [variant, evidence] of [
      ['batched evidence (shipped)', batched],
      [
        'per-record evidence (no recordDecisions)',
        new PerRecordRecorder(new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' })),
      ],
    ]) {
      const app = await boot(dataSource, evidence);
      const verdict = app.get(VerdictService);
      const approvals = app.get(ApprovalService);
      const contexts = app.get(ActionContextStore);
      for (const concurrency of CONCURRENCY) {
        // Untimed: propose and approve every call.
        const prepared = [];
        for (let i = 0; i < CALLS; i++) {
          const toolCallId = `call_${randomUUID()}`;
          const proposal = { capability: 'orders.refund', arguments: { orderId: randomUUID() }, toolCallId };
          const first = await contexts.run(context, () => verdict.execute(proposal));
          if (first.decision.disposition !== 'require_confirmation') throw new Error('expected a confirmation');
          await approvals.approve(first.challenge.receiptId, toolCallId, 'customer:72');
          prepared.push(proposal);
        }
        await batched.seal();
        statements.reset();
        const samples = await timed(
          prepared.map((proposal) => async () => {
            const result = await contexts.run(context, () => verdict.execute(proposal, { explicitApproval: true }));
            if (!result.executed)
              throw new Error(`an approved call was not executed: ${JSON.stringify(result.decision)}`);
          }),
          concurrency,
        );
        const perCall = { all: statements.counts.all / CALLS, evidence: statements.counts.evidence / CALLS };
        // Linking the calls' records into the chain, amortized: one seal after the phase.
        statements.reset();
        await batched.seal();
        perCall.seal = statements.counts.all / CALLS;
        // Baseline: as many bare single-row INSERTs as the call sent statements, in sequence.
        const inserts = Math.round(perCall.all);
        const baseline = await timed(
          Array.from({ length: CALLS }, () => async () => {
            for (let i = 0; i < inserts; i++)
              await dataSource.query(`INSERT INTO bench_rows (id, v) VALUES (${p(1)}, ${p(2)})`, [randomUUID(), 'x']);
          }),
          concurrency,
        );
        rows.push({ engine: engine.name, variant, concurrency, perCall, inserts, samples, baseline });
      }
      await app.close();
    }
  } finally {
    await dataSource.destroy();
  }
});

if (rows.length > 0) {
  table(
    `Fully gated approved call (${CALLS} calls per row) vs the same number of bare INSERTs, same DataSource`,

    rows.map((row) => ({
      engine: row.engine,
      variant: row.variant,
      concurrent: row.concurrency,
      'statements/call': fmt(row.perCall.all, 2),
      'evidence INSERTs/call': fmt(row.perCall.evidence, 2),
      'seal statements/call (amortized)': fmt(row.perCall.seal, 2),
      p50_ms: fmt(percentile(row.samples, 50), 2),
      p95_ms: fmt(percentile(row.samples, 95), 2),
      [`bare INSERTs p50_ms`]: fmt(percentile(row.baseline, 50), 2),
      [`bare INSERTs p95_ms`]: fmt(percentile(row.baseline, 95), 2),
      'p50 ratio': fmt(percentile(row.samples, 50) / percentile(row.baseline, 50), 2),
    })),
  );
  for (const row of rows.filter((r) => r.variant.startsWith('batched')))
    console.log(
      target(
        `${row.engine} at ${row.concurrency}: evidence in <= 2 statements per call (${fmt(row.perCall.evidence, 2)})`,
        row.perCall.evidence <= 2,
      ),
    );
}
