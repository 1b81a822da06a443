// A LangChain `createAgent` run of 10 reads (a scripted chat model asks for one order lookup per turn, then
// answers) with Verdict-bound tools and durable evidence (TypeOrmEvidenceRecorder on PostgreSQL, its
// background seal on), next to the same run with naive tools (the same lookup reading the row through the same
// DataSource, no Verdict), in the same run, alternating. Targets (issue 22, target 3): the bound run's median
// <= 1.3× the naive run's; the order row read once per call when the capability's execution-target policy
// allows it (`acceptStaleSnapshot`: the executor gets the resolver's row). For reference, the same run with
// `ExecutionTargetPolicy.refresh`, which reads the row again before execution, as that policy promises; the naive
// tool with one awaited audit INSERT per call (what any durable record per call costs); the bound tool whose
// recorder links its chain only when `seal()` is called (`seal: 'manual'`, what the background seal costs the run);
// and the bound tool with in-memory evidence (what the pipeline costs without a durable write). Each row also shows
// the process's own CPU time per run (user and system, every thread) and the share of the wall time it kept the
// process busy: the agent loop is CPU-bound, so what a variant adds in CPU it adds in time.
//
// Needs VERDICT_TEST_POSTGRES_URL; skipped without it.
import 'reflect-metadata';
import { createMongoAbility } from '@casl/ability';
import { HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { createAgent } from 'langchain';
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { DataSource } from 'typeorm';
import { z } from 'zod';
import {
  ActionContextStore,
  ExecutionTargetPolicy,
  InMemoryEvidenceRecorder,
  TargetNotResolvable,
  VerdictModule,
  defineCapability,
  fromProposal,
} from '@verdict/nestjs';
import { VerdictLangChainModule, VerdictTools } from '@verdict/nestjs/langchain';
import { ScriptedChatModel } from '@verdict/nestjs/testing/langchain';
import { TypeOrmEvidenceRecorder, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { dropDataSource, openDataSource } from '@verdict/testing-kit';
import { skipped, table, target } from './report.js';
import { fmt, median, percentile } from './stats.js';

const READS = 10;
const RUNS = Number(process.env.BENCH_AGENT_RUNS ?? 60);
const ROUNDS = 6;
const url = process.env.VERDICT_TEST_POSTGRES_URL;
const context = { actor: { customerId: 72 }, tenant: 'acme' };
const schema = z.object({ orderId: z.string() });
const view = (order) => JSON.stringify({ id: order.id, status: order.status });

/** Counts the statements that read an order row. */
const reads = { count: 0 };
const logger = {
  logQuery: (query) => {
    if (/FROM\s+\S*bench_orders/i.test(query)) reads.count++;
  },
  logQueryError: () => {},
  logQuerySlow: () => {},
  logSchemaBuild: () => {},
  logMigration: () => {},
  log: () => {},
};

if (!url) skipped('postgres', 'VERDICT_TEST_POSTGRES_URL is not set');
else {
  const engine = { name: 'postgres', url };
  const admin = await openDataSource(engine, { entities: verdictEntities, migrations: verdictMigrations });
  const dataSource = await new DataSource({ ...admin.options, migrations: [], poolSize: 10, logger }).initialize();
  const rows = [];
  try {
    await dataSource.query(
      'CREATE TABLE bench_orders (id varchar(64) PRIMARY KEY, tenant varchar(32), customer integer, status varchar(16))',
    );
    const orders = Array.from({ length: READS }, () => randomUUID());
    await dataSource.query(
      `INSERT INTO bench_orders (id, tenant, customer, status) SELECT unnest($1::text[]), 'acme', 72, 'placed'`,
      [orders],
    );
    const readOrder = async (id) => {
      const [order] = await dataSource.query('SELECT id, tenant, customer, status FROM bench_orders WHERE id = $1', [
        id,
      ]);
      return order;
    };
    const naiveTool = tool(async ({ orderId }) => view(await readOrder(orderId)), {
      name: 'lookup_order',
      description: 'Look up an order',
      schema,
    });
    // For reference: the naive tool with one awaited, autocommitted audit INSERT per call, the least a durable
    // record of each call costs, whoever writes it.
    await dataSource.query('CREATE TABLE bench_audit (id varchar(64) PRIMARY KEY, order_id varchar(64))');
    const auditedTool = tool(
      async ({ orderId }) => {
        const order = await readOrder(orderId);
        await dataSource.query('INSERT INTO bench_audit (id, order_id) VALUES ($1, $2)', [randomUUID(), orderId]);
        return view(order);
      },
      { name: 'lookup_order', description: 'Look up an order', schema },
    );
    const capability = (name, executionTarget) =>
      defineCapability(
        {
          name,
          description: 'Look up an order',
          action: 'view',
          subject: 'Order',
          arguments: schema,
          resolveTarget: fromProposal(
            async ({ arguments: args }) =>
              (await readOrder(args.orderId)) ?? TargetNotResolvable.throw('no such order'),
          ),
          executionTarget,
        },
        (action) => view(action.target),
      );
    const identity = (order) => ({ tenant: order.tenant, type: 'order', id: order.id });
    const readOnce = capability(
      'orders.view',
      ExecutionTargetPolicy.acceptStaleSnapshot({ name: 'order-id', identity }),
    );
    const readTwice = capability(
      'orders.view-fresh',
      ExecutionTargetPolicy.refresh({
        name: 'order-primary-key',
        identity,
        refresh: async (order) => (await readOrder(order.id)) ?? TargetNotResolvable.throw('order is gone'),
      }),
    );
    /** An application of the two capabilities whose evidence goes to `evidence`. */
    const boot = async (evidence) => {
      class BenchModule {}
      Module({
        imports: [
          VerdictModule.forRoot({
            abilityFactory: {
              createForContext: ({ actor, tenant }) =>
                createMongoAbility([
                  { action: 'view', subject: 'Order', conditions: { customer: actor.customerId, tenant } },
                ]),
            },
            evidence,
            capabilities: [readOnce, readTwice],
          }),
          VerdictLangChainModule,
        ],
      })(BenchModule);
      const app = await NestFactory.createApplicationContext(BenchModule, { logger: false });
      await app.init();
      return app;
    };
    const recorder = new TypeOrmEvidenceRecorder(dataSource);
    const app = await boot(recorder);
    // For reference: the same evidence with its chain linked by a scheduled `seal()` instead of the background seal.
    const manualSeal = await boot(new TypeOrmEvidenceRecorder(dataSource, { seal: 'manual' }));
    // For reference: the same bound tool with in-memory evidence, what the pipeline costs without a durable write.
    const inMemory = await boot(new InMemoryEvidenceRecorder());
    const tools = app.get(VerdictTools);
    const variants = {
      naive: naiveTool,
      'bound, row read once (acceptStaleSnapshot)': tools.bound(naiveTool, 'orders.view'),
      'bound, row read again (refresh)': tools.bound(naiveTool, 'orders.view-fresh'),
      'naive + one audit INSERT per call (reference)': auditedTool,
      "bound, row read once, seal: 'manual' (reference)": manualSeal.get(VerdictTools).bound(naiveTool, 'orders.view'),
      'bound, row read once, in-memory evidence (reference)': inMemory
        .get(VerdictTools)
        .bound(naiveTool, 'orders.view'),
    };
    /** Each bound tool runs in the action context of the application that made it. */
    const contexts = new Map([
      [variants["bound, row read once, seal: 'manual' (reference)"], manualSeal.get(ActionContextStore)],
      [variants['bound, row read once, in-memory evidence (reference)'], inMemory.get(ActionContextStore)],
    ]);
    const contextsOf = (lookup) => contexts.get(lookup) ?? app.get(ActionContextStore);
    /** One agent run: READS turns of one lookup each, then an answer; its latency (ms). */
    const agentRun = async (lookup) => {
      const model = new ScriptedChatModel([
        ...orders.map((orderId) => ({
          toolCalls: [{ name: 'lookup_order', args: { orderId }, id: `call_${randomUUID()}` }],
        })),
        { text: 'Done.' },
      ]);
      const agent = createAgent({ model, tools: [lookup] });
      const start = performance.now();
      const result = await contextsOf(lookup).run(context, () =>
        agent.invoke({ messages: [new HumanMessage('my orders')] }),
      );
      const elapsed = performance.now() - start;
      const answers = result.messages.filter((message) => message.getType() === 'tool');
      if (answers.length !== READS || !answers.every((message) => String(message.content).includes('"placed"')))
        throw new Error('a lookup did not answer the order: the bench is not measuring permitted reads');
      return elapsed;
    };
    for (const lookup of Object.values(variants)) for (let i = 0; i < 5; i++) await agentRun(lookup); // warm-up
    const samples = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
    const readsPerCall = Object.fromEntries(Object.keys(variants).map((name) => [name, 0]));
    /** Each variant's process CPU time and wall time over its runs (ms). */
    const busy = Object.fromEntries(Object.keys(variants).map((name) => [name, { cpu: 0, wall: 0 }]));
    for (let round = 0; round < ROUNDS; round++)
      for (const [name, lookup] of Object.entries(variants)) {
        reads.count = 0;
        const [cpu, wall] = [process.cpuUsage(), performance.now()];
        for (let i = 0; i < Math.floor(RUNS / ROUNDS); i++) samples[name].push(await agentRun(lookup));
        const used = process.cpuUsage(cpu);
        busy[name].cpu += (used.user + used.system) / 1000;
        busy[name].wall += performance.now() - wall;
        readsPerCall[name] += reads.count;
      }
    await recorder.whenSealed();
    await app.close();
    await manualSeal.close();
    await inMemory.close();
    const naive = median(samples.naive);
    for (const name of Object.keys(variants))
      rows.push({
        variant: name,
        median_ms: fmt(median(samples[name]), 2),
        p95_ms: fmt(percentile(samples[name], 95), 2),
        'row reads/call': fmt(readsPerCall[name] / (ROUNDS * Math.floor(RUNS / ROUNDS) * READS), 2),
        'ratio (median)': fmt(median(samples[name]) / naive, 2),
        'client CPU ms/run': fmt(busy[name].cpu / samples[name].length, 2),
        'client busy': fmt(busy[name].cpu / busy[name].wall, 2),
      });
    table(
      `createAgent run of ${READS} reads (${RUNS} runs per variant, alternating in ${ROUNDS} rounds): Verdict-bound tools with TypeORM PostgreSQL evidence vs naive tools`,
      rows,
    );
    const once = 'bound, row read once (acceptStaleSnapshot)';
    const ratio = median(samples[once]) / naive;
    const calls = ROUNDS * Math.floor(RUNS / ROUNDS) * READS;
    console.log(target(`bound run <= 1.3× the naive run (${fmt(ratio, 2)}×)`, ratio <= 1.3));
    console.log(
      target(
        `the row read once per call under acceptStaleSnapshot (${readsPerCall[once]} reads in ${calls} calls)`,
        readsPerCall[once] === calls,
      ),
    );
  } finally {
    await dataSource.destroy();
    await dropDataSource(admin);
  }
}
