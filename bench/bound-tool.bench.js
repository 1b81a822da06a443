// The bound tool's permit and deny paths against a raw LangChain tool.invoke of the same executor,
// measured in the same run. Targets (issue 2): permit <= 1.3x raw; deny <= permit.
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
import { compare, fmt } from './stats.js';

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

const result = await contexts.run(context, () =>
  compare({
    raw: (i) => rawTool.invoke(call(1002, i)),
    rawClass: (i) => rawClassTool.invoke(call(1002, i)),
    permit: (i) => bound.invoke(call(1002, i)),
    deny: (i) => bound.invoke(call(1001, i)),
  }),
);
const ratio = (name) => result[name].median / result.raw.median;
console.log('\nBound tool vs raw LangChain tool.invoke (median per call, µs; in-memory evidence)');
console.table({
  'raw tool.invoke': { median_us: fmt(result.raw.median), p95_us: fmt(result.raw.p95), ratio: '1.00' },
  'raw StructuredTool subclass': {
    median_us: fmt(result.rawClass.median),
    p95_us: fmt(result.rawClass.p95),
    ratio: fmt(ratio('rawClass'), 2),
  },
  'bound permit': {
    median_us: fmt(result.permit.median),
    p95_us: fmt(result.permit.p95),
    ratio: fmt(ratio('permit'), 2),
  },
  'bound deny': { median_us: fmt(result.deny.median), p95_us: fmt(result.deny.p95), ratio: fmt(ratio('deny'), 2) },
});
console.log(
  `pipeline cost over the bare subclass: permit +${fmt(result.permit.median - result.rawClass.median)} µs, deny +${fmt(result.deny.median - result.rawClass.median)} µs`,
);
console.log(
  `targets: permit <= 1.30x raw -> ${ratio('permit') <= 1.3 ? 'met' : 'MISSED'}; deny <= permit -> ${result.deny.median <= result.permit.median ? 'met' : 'MISSED'}`,
);
await app.close();
