// The bound tool's permit and deny paths against a raw LangChain tool.invoke of the same executor,
// measured in the same run. Targets (issue 22): permit <= 1.15x raw; deny <= 0.7x raw, with the recorder's
// evidence chain on. The recorder links in batches off the call path (ADR 0075): the CPU time per call
// includes the batches.
import 'reflect-metadata';
import { createMongoAbility } from '@casl/ability';
import { StructuredTool, tool } from '@langchain/core/tools';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
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
import { z } from 'zod';
import { table, target } from './report.js';
import { compare, fmt, median } from './stats.js';

class Order {
  constructor(id, tenantId, customerId, status) {
    Object.assign(this, { id, tenantId, customerId, status });
  }
}
const orders = new Map([
  [1001, new Order(1001, 'acme', 91, 'placed')],
  [1002, new Order(1002, 'acme', 72, 'placed')],
]);
const schema = z.object({ orderId: z.number().int().positive() });
const view = (order) => ({ id: order.id, status: order.status });

const rawTool = tool(async ({ orderId }) => JSON.stringify(view(orders.get(orderId))), {
  name: 'lookup_order',
  description: 'Look up an order',
  schema,
});

// The same executor as a StructuredTool subclass: the class VerdictBoundTool itself extends. `tool()`
// adds a context wrapper per call; this second baseline shows the pipeline's cost without it.
class RawLookupOrder extends StructuredTool {
  name = 'lookup_order';
  description = 'Look up an order';
  schema = schema;
  async _call({ orderId }) {
    return JSON.stringify(view(orders.get(orderId)));
  }
}
const rawClassTool = new RawLookupOrder();

const lookupOrder = defineCapability(
  {
    name: 'orders.view',
    description: 'Look up an order',
    action: 'view',
    subject: 'Order',
    arguments: schema,
    resolveTarget: fromProposal(({ arguments: args, context }) => {
      const order = orders.get(args.orderId);
      return order?.tenantId === context.tenant ? order : TargetNotResolvable.throw('order not found');
    }),
    executionTarget: ExecutionTargetPolicy.refresh({
      name: 'order-primary-key',
      identity: (order) => ({ tenant: order.tenantId, type: 'order', id: order.id }),
      refresh: (order) => orders.get(order.id),
    }),
  },
  (action) => view(action.target),
);

const evidence = new InMemoryEvidenceRecorder(1000);
const abilityFactory = {
  createForContext: ({ actor, tenant }) =>
    createMongoAbility([
      { action: 'view', subject: 'Order', conditions: { customerId: actor.customerId, tenantId: tenant } },
    ]),
};
class BenchModule {}
Module({
  imports: [VerdictModule.forRoot({ abilityFactory, evidence, capabilities: [lookupOrder] }), VerdictLangChainModule],
})(BenchModule);

const app = await NestFactory.createApplicationContext(BenchModule, { logger: false });
await app.init();
const bound = app.get(VerdictTools).bound(rawTool, 'orders.view');
const contexts = app.get(ActionContextStore);
const context = { actor: { customerId: 72 }, tenant: 'acme' };
const call = (orderId, i) => ({ name: 'lookup_order', args: { orderId }, id: `call_${i}`, type: 'tool_call' });

// Sanity: the paths do what they claim before they are timed.
const permitted = await contexts.run(context, () => bound.invoke(call(1002, 0)));
const denied = await contexts.run(context, () => bound.invoke(call(1001, 0)));
if (!String(permitted.content).includes('"status":"placed"') || !String(denied.content).includes('not_executed'))
  throw new Error('bench paths are not what they claim');

// Repetitions of the interleaved comparison; each target holds on the median of the repetitions' ratios.
const REPETITIONS = Number(process.env.BENCH_REPETITIONS ?? 9);
const repetitions = [];
for (let rep = 0; rep < REPETITIONS; rep++)
  repetitions.push(
    await contexts.run(context, () =>
      compare({
        raw: (i) => rawTool.invoke(call(1002, i)),
        rawClass: (i) => rawClassTool.invoke(call(1002, i)),
        permit: (i) => bound.invoke(call(1002, i)),
        deny: (i) => bound.invoke(call(1001, i)),
      }),
    ),
  );
const ratios = (name) => repetitions.map((result) => result[name].median / result.raw.median);
const range = (values, digits) => {
  const [low, high] = [Math.min(...values), Math.max(...values)];
  return low.toFixed(digits) === high.toFixed(digits) ? fmt(low, digits) : `${fmt(low, digits)}–${fmt(high, digits)}`;
};
const variants = {
  raw: 'raw tool.invoke',
  rawClass: 'raw StructuredTool subclass',
  permit: 'bound permit',
  deny: 'bound deny',
};
table(
  `Bound tool vs raw LangChain tool.invoke (median and p95 per call and CPU time per call, µs, range over ${REPETITIONS} repetitions; in-memory chained evidence; ratio of medians)`,
  Object.fromEntries(
    Object.entries(variants).map(([name, label]) => [
      label,
      {
        median_us: range(
          repetitions.map((result) => result[name].median),
          1,
        ),
        p95_us: range(
          repetitions.map((result) => result[name].p95),
          1,
        ),
        cpu_us: range(
          repetitions.map((result) => result[name].cpu),
          1,
        ),
        ratio: range(ratios(name), 2),
      },
    ]),
  ),
);
const cost = (name) => median(repetitions.map((result) => result[name].median - result.rawClass.median));
console.log(`pipeline cost over the bare subclass: permit +${fmt(cost('permit'))} µs, deny +${fmt(cost('deny'))} µs`);
const permit = median(ratios('permit'));
const deny = median(ratios('deny'));
console.log(
  [
    target(`bound permit <= 1.15x raw tool.invoke (${fmt(permit, 2)}x)`, permit <= 1.15),
    target(`bound deny <= 0.70x raw tool.invoke (${fmt(deny, 2)}x)`, deny <= 0.7),
  ].join('; '),
);
await app.close();
