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
import { createMongoAbility, subject } from '@casl/ability';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { createHash, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import {
  ActionContextStore,
  ApprovalService,
  ExecutionTargetPolicy,
  TargetNotResolvable,
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
  const counts = { all: 0, evidence: 0, kinds: {}, ms: {} };
  // The statement's verb and first table: the per-call profile of the gated-call comparison.
  const kindOf = (query) => {
    const kind = /^\s*(\w+)\s+(?:.*?\b(?:FROM|INTO)\s+)?(?:[`"]?\w+[`"]?\.)?[`"]?(\w+)/is.exec(query);
    return kind ? `${kind[1].toUpperCase()} ${kind[2]}` : query.slice(0, 24);
  };
  const logger = {
    logQuery: (query) => {
      counts.all++;
      if (/^INSERT INTO \S*verdict_decision_records/i.test(query)) counts.evidence++;
      const name = kindOf(query);
      counts.kinds[name] = (counts.kinds[name] ?? 0) + 1;
    },
    logQueryError: () => {},
    // With `maxQueryExecutionTime` near zero TypeORM reports every statement's time (whole milliseconds,
    // the pool wait excluded) here: summed per kind.
    logQuerySlow: (time, query) => {
      const name = kindOf(query);
      counts.ms[name] = (counts.ms[name] ?? 0) + time;
    },
    logSchemaBuild: () => {},
    logMigration: () => {},
    log: () => {},
  };
  return { counts, logger, reset: () => Object.assign(counts, { all: 0, evidence: 0, kinds: {}, ms: {} }) };
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

/** The actor's rules: the same for Verdict's ability factory and the hand-written call. */
const rules = [
  { action: 'refund', subject: 'Order' },
  { action: 'cancel', subject: 'Order', conditions: { tenant: 'acme' } },
];

async function boot(dataSource, evidence, capabilities = [refund]) {
  class BenchModule {}
  Module({
    imports: [
      VerdictModule.forRoot({
        abilityFactory: { createForContext: () => createMongoAbility(rules) },
        evidence,
        approvals: new TypeOrmApprovalReceiptStore(dataSource),
        rateLimits: new TypeOrmRateLimitStore(dataSource),
        executionClaims: new TypeOrmExecutionClaimStore(dataSource),
        capabilities,
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

/** A DataSource of 25 connections on `admin`'s schema whose statements `statements` counts; `p(i)`: the engine's placeholder. */
async function openLogged(engine, admin, options = {}) {
  const statements = statementLogger();
  const dataSource = await new DataSource({
    ...admin.options,
    migrations: [],
    poolSize: 25,
    ...options,
    logger: statements.logger,
  }).initialize();
  return { statements, dataSource, p: (i) => (engine.name === 'postgres' ? `$${i}` : '?') };
}

const rows = [];
await forEachEngine(async (engine, admin) => {
  const { statements, dataSource, p } = await openLogged(engine, admin);
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

// Issue 22, target 2: a fully gated call without confirmation (the order row read by the resolver, CASL,
// rate limit, at-most-once claim, durable TypeORM evidence with its background seal) against a hand-written
// tool doing the same work through the same DataSource, measured in the same run: the row read, the CASL
// check, a rate-limit upsert, an idempotency claim (INSERT, and its completion UPDATE after the work, as an
// idempotency key records that the call finished) and one audit INSERT holding a fingerprint of the
// arguments. Each call has its own order (so its own claim and bucket). The two run in alternating batches
// (ROUNDS of each per concurrency) so that machine noise hits both alike; the target is p50 and p95 <= 1.3×
// the hand-written call's, with 1 and with 20 concurrent callers. For reference, two more figures per row:
// the hand-written call with one more INSERT before its rate limit (the write-ahead record Verdict writes before
// the first mutating gate, so that a crash after the spend still leaves the decision on record), and the
// process's own CPU time per call (user and system, every thread: the statements' encoding and socket writes,
// the pipeline, the seal's hashing) with the share of the batch's wall time it kept the process busy. With
// the database server on the same cores, a call that needs more client CPU waits longer at 20 callers.
const ROUNDS = Number(process.env.BENCH_GATED_ROUNDS ?? 4);
const WARMUP = 100;

const cancel = (dataSource, p) =>
  defineCapability(
    {
      name: 'orders.cancel',
      description: 'Cancel an order',
      action: 'cancel',
      subject: 'Order',
      arguments: z.object({ orderId: z.string() }),
      resolveTarget: fromProposal(async ({ arguments: args }) => {
        const [order] = await dataSource.query(`SELECT id, tenant, status FROM bench_orders WHERE id = ${p(1)}`, [
          args.orderId,
        ]);
        return order ?? TargetNotResolvable.throw('no such order');
      }),
      // The hand-written tool reads the row once: so does this call (the executor gets the resolver's row).
      executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot({ name: 'order-id', identity: (order) => order.id }),
      rateLimit: fixedWindow({
        name: 'cancellations',
        limit: 1_000_000_000,
        windowSeconds: 3600,
        key: ({ arguments: args }) => ({ order: args.orderId }),
        reason: 'cancellation budget',
      }),
      atMostOnce: atMostOnce({ name: 'one-cancellation', key: (_envelope, order) => ({ order: order.id }) }),
    },
    async (action) => ({ cancelled: action.target.id }),
  );

/** The hand-written tool's statements, per engine. */
function handWrittenSql(engine, p) {
  const postgres = engine.name === 'postgres';
  return {
    read: `SELECT id, tenant, status FROM bench_orders WHERE id = ${p(1)}`,
    rate: postgres
      ? `INSERT INTO bench_rate (bucket, window_start, count) VALUES ($1, $2, 1) ON CONFLICT (bucket, window_start) ` +
        `DO UPDATE SET count = bench_rate.count + 1 WHERE bench_rate.count < $3 RETURNING count`
      : `INSERT INTO bench_rate (bucket, window_start, count) VALUES (?, ?, LAST_INSERT_ID(1)) ` +
        `ON DUPLICATE KEY UPDATE count = IF(count < ?, LAST_INSERT_ID(count + 1), count + LAST_INSERT_ID(0))`,
    claim: postgres
      ? `INSERT INTO bench_claims (claim_key, status, claimed_at) VALUES ($1, 'claimed', $2) ON CONFLICT (claim_key) DO NOTHING RETURNING claim_key`
      : `INSERT IGNORE INTO bench_claims (claim_key, status, claimed_at) VALUES (?, 'claimed', ?)`,
    finish: `UPDATE bench_claims SET status = 'done' WHERE claim_key = ${p(1)}`,
    audit:
      `INSERT INTO bench_audit (id, at, actor, action, target, outcome, arguments_fingerprint) ` +
      `VALUES (${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}, ${p(6)}, ${p(7)})`,
  };
}

/** One hand-written gated call: what a careful developer writes without Verdict. */
async function handWrittenCall(dataSource, sql, engine, orderId, writeAhead = false) {
  const [order] = await dataSource.query(sql.read, [orderId]);
  if (!order) throw new Error('no such order');
  if (!createMongoAbility(rules).can('cancel', subject('Order', { ...order }))) throw new Error('denied');
  const sha = (value) => createHash('sha256').update(value).digest('hex');
  const audit = (outcome) =>
    dataSource.query(sql.audit, [
      randomUUID(),
      new Date(),
      'user:72',
      'orders.cancel',
      order.id,
      outcome,
      sha(JSON.stringify({ orderId })),
    ]);
  if (writeAhead) await audit('permitted');
  const window = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
  const rate = await dataSource.query(sql.rate, [sha(`cancellations:${orderId}`), window, 1_000_000_000]);
  if (engine.name === 'postgres' ? rate.length !== 1 : rate.insertId === 0) throw new Error('rate limited');
  const key = sha(`one-cancellation:${orderId}`);
  const claimed = await dataSource.query(sql.claim, [key, new Date()]);
  if ((engine.name === 'postgres' ? claimed.length : claimed.affectedRows) !== 1) throw new Error('already done');
  const result = { cancelled: order.id };
  await dataSource.query(sql.finish, [key]);
  await audit('executed');
  return result;
}

const gated = [];
await forEachEngine(async (engine, admin) => {
  const { statements, dataSource, p } = await openLogged(engine, admin, { maxQueryExecutionTime: Number.MIN_VALUE });
  const key = engine.name === 'postgres' ? 'varchar(64)' : 'varchar(64) CHARACTER SET ascii';
  const instant = engine.name === 'postgres' ? 'timestamptz' : 'datetime(3)';
  await dataSource.query(`CREATE TABLE bench_orders (id ${key} PRIMARY KEY, tenant varchar(32), status varchar(16))`);
  await dataSource.query(
    `CREATE TABLE bench_rate (bucket ${key}, window_start ${instant}, count integer, PRIMARY KEY (bucket, window_start))`,
  );
  await dataSource.query(
    `CREATE TABLE bench_claims (claim_key ${key} PRIMARY KEY, status varchar(16), claimed_at ${instant})`,
  );
  await dataSource.query(
    `CREATE TABLE bench_audit (id ${key} PRIMARY KEY, at ${instant}, actor varchar(64), action varchar(64), ` +
      `target varchar(64), outcome varchar(16), arguments_fingerprint varchar(64))`,
  );
  const orders = Array.from({ length: 4 * (CALLS * CONCURRENCY.length + WARMUP) }, () => randomUUID());
  for (let i = 0; i < orders.length; i += 500) {
    const batch = orders.slice(i, i + 500);
    await dataSource.query(
      `INSERT INTO bench_orders (id, tenant, status) VALUES ${batch.map((_, j) => `(${p(2 * j + 1)}, 'acme', ${p(2 * j + 2)})`).join(', ')}`,
      batch.flatMap((id) => [id, 'open']),
    );
  }
  let nextOrder = 0;
  const take = (count) => {
    const taken = orders.slice(nextOrder, (nextOrder += count));
    if (taken.length !== count) throw new Error('the bench ran out of orders: each call needs one of its own');
    return taken;
  };
  const sql = handWrittenSql(engine, p);
  const background = new TypeOrmEvidenceRecorder(dataSource);
  const app = await boot(dataSource, background, [cancel(dataSource, p)]);
  // For the profile: the same call with its recorder sealing only between batches (untimed), so the
  // difference is what the background seal costs the calls running beside it.
  const manual = new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' });
  const unsealed = await boot(dataSource, manual, [cancel(dataSource, p)]);
  // A call that throws (a database fault: fail closed) is counted and reported, not retried.
  const failures = new Map();
  const gatedCall = (application) => (orderId) => async () => {
    const [verdict, contexts] = [application.get(VerdictService), application.get(ActionContextStore)];
    let result;
    try {
      result = await contexts.run(context, () =>
        verdict.execute({ capability: 'orders.cancel', arguments: { orderId }, toolCallId: `call_${randomUUID()}` }),
      );
    } catch (error) {
      const cause = error.cause?.code ?? error.cause?.driverError?.code;
      const code = `${error.code ?? error.name}${cause ? ` (${cause})` : ''}`;
      failures.set(code, (failures.get(code) ?? 0) + 1);
      return;
    }
    if (!result.executed) throw new Error(`a permitted call was not executed: ${JSON.stringify(result.decision)}`);
  };
  const verdictCall = gatedCall(app);
  const unsealedCall = gatedCall(unsealed);
  const handCall = (orderId) => () => handWrittenCall(dataSource, sql, engine, orderId);
  const writeAheadCall = (orderId) => () => handWrittenCall(dataSource, sql, engine, orderId, true);
  try {
    await timed(take(WARMUP).map(verdictCall), 5);
    await timed(take(WARMUP).map(unsealedCall), 5);
    await timed(take(WARMUP).map(handCall), 5);
    await timed(take(WARMUP).map(writeAheadCall), 5);
    await manual.seal();
    for (const concurrency of CONCURRENCY) {
      const measured = { verdict: [], unsealed: [], hand: [], writeAhead: [] };
      const counts = { verdict: 0, unsealed: 0, hand: 0, writeAhead: 0 };
      /** The process's CPU time and the wall time of each variant's batches (ms). */
      const busy = { verdict: { cpu: 0, wall: 0 }, hand: { cpu: 0, wall: 0 } };
      const kinds = { verdict: {}, hand: {} };
      for (let round = 0; round < ROUNDS; round++) {
        for (const [name, call] of [
          ['verdict', verdictCall],
          ['unsealed', unsealedCall],
          ['hand', handCall],
          ['writeAhead', writeAheadCall],
        ]) {
          statements.reset();
          const [cpu, wall] = [process.cpuUsage(), performance.now()];
          measured[name].push(...(await timed(take(CALLS / ROUNDS).map(call), concurrency)));
          if (name in busy) {
            const used = process.cpuUsage(cpu);
            busy[name].cpu += (used.user + used.system) / 1000;
            busy[name].wall += performance.now() - wall;
          }
          counts[name] += statements.counts.all;
          if (name in kinds)
            for (const [kind, count] of Object.entries(statements.counts.kinds)) {
              const entry = (kinds[name][kind] ??= { count: 0, ms: 0 });
              entry.count += count / CALLS;
              entry.ms += (statements.counts.ms[kind] ?? 0) / CALLS;
            }
          // Untimed: the background seal a batch started ends before the next variant's batch, which it would slow.
          if (name === 'verdict') await background.whenSealed();
          if (name === 'unsealed') await manual.seal();
        }
      }
      table(
        `${engine.name}, ${concurrency} caller(s): statements per call and their database time (ms per call, TypeORM's timing; background seal included)`,
        Object.entries({ ...kinds.verdict, ...kinds.hand })
          .map(([statement]) => [statement, kinds.verdict[statement], kinds.hand[statement]])
          .sort(([, a], [, b]) => (b?.ms ?? 0) - (a?.ms ?? 0))
          .map(([statement, verdict, hand]) => ({
            statement,
            'gated call: per call': fmt(verdict?.count ?? 0, 2),
            'gated call: ms per call': fmt(verdict?.ms ?? 0, 2),
            'hand-written: per call': fmt(hand?.count ?? 0, 2),
            'hand-written: ms per call': fmt(hand?.ms ?? 0, 2),
          })),
      );
      gated.push({
        engine: engine.name,
        concurrency,
        verdict: measured.verdict,
        unsealed: measured.unsealed,
        hand: measured.hand,
        writeAhead: measured.writeAhead,
        busy,
        statements: {
          verdict: counts.verdict / CALLS,
          unsealed: counts.unsealed / CALLS,
          hand: counts.hand / CALLS,
        },
        failures: [...failures].map(([code, count]) => `${code} × ${count}`).join(', '),
      });
      failures.clear();
    }
  } finally {
    await app.close();
    await unsealed.close();
    await dataSource.destroy();
  }
});

if (gated.length > 0) {
  const at = (samples, p) => percentile(samples, p);
  table(
    `Fully gated call (rate limit + at-most-once + TypeORM evidence, ${CALLS} calls per row) vs a hand-written gated tool, same DataSource, alternating batches`,
    gated.map((row) => ({
      engine: row.engine,
      concurrent: row.concurrency,
      'statements/call': fmt(row.statements.verdict, 2),
      'hand-written statements/call': fmt(row.statements.hand, 2),
      p50_ms: fmt(at(row.verdict, 50), 2),
      p95_ms: fmt(at(row.verdict, 95), 2),
      'hand-written p50_ms': fmt(at(row.hand, 50), 2),
      'hand-written p95_ms': fmt(at(row.hand, 95), 2),
      'p50 ratio': fmt(at(row.verdict, 50) / at(row.hand, 50), 2),
      'p95 ratio': fmt(at(row.verdict, 95) / at(row.hand, 95), 2),
      'failed calls': row.failures || 'none',
      'seal between batches: statements/call': fmt(row.statements.unsealed, 2),
      'seal between batches: p50 ratio': fmt(at(row.unsealed, 50) / at(row.hand, 50), 2),
      'seal between batches: p95 ratio': fmt(at(row.unsealed, 95) / at(row.hand, 95), 2),
      'hand-written + write-ahead INSERT: p50 ratio': fmt(at(row.writeAhead, 50) / at(row.hand, 50), 2),
      'hand-written + write-ahead INSERT: p95 ratio': fmt(at(row.writeAhead, 95) / at(row.hand, 95), 2),
      'client CPU ms/call': fmt(row.busy.verdict.cpu / CALLS, 3),
      'hand-written client CPU ms/call': fmt(row.busy.hand.cpu / CALLS, 3),
      'client busy': fmt(row.busy.verdict.cpu / row.busy.verdict.wall, 2),
      'hand-written client busy': fmt(row.busy.hand.cpu / row.busy.hand.wall, 2),
    })),
  );
  for (const row of gated) {
    const [p50, p95] = [50, 95].map((p) => at(row.verdict, p) / at(row.hand, p));
    console.log(
      target(
        `${row.engine} gated call with ${row.concurrency} caller(s) <= 1.3× hand-written at p50 and p95 (${fmt(p50, 2)}×, ${fmt(p95, 2)}×)`,
        p50 <= 1.3 && p95 <= 1.3,
      ),
    );
    if (row.failures)
      console.log(
        target(`${row.engine} gated calls with ${row.concurrency} caller(s) all complete (${row.failures})`, false),
      );
  }
}
