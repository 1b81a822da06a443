import { describe, expect, it } from '@jest/globals';
import { HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { MemorySaver } from '@langchain/langgraph';
import { ProvenanceSource, Trust } from '@verdict/nestjs';
import { PlanModes } from '@verdict/nestjs/langchain';
import { ScriptedChatModel, type ScriptStep } from '@verdict/nestjs/testing/langchain';
import { createAgent } from 'langchain';
import { z } from 'zod';
import { paymentsFixture } from '../provenance/payments.fixture.js';

/** The bill's IBAN (not the one the product's injected review holds). */
const BILL_IBAN = 'FR7630006000011234567890189';
/** Payments answer what they paid: the application's own data, trusted. */
const allow = {
  untrustedContext: 'allow',
  arguments: { recipient: 'allow' },
  results: { trust: Trust.Trusted },
} as const;
/** The plan: read a product, and pay the bill in the file (its recipient and amount come from `mcp:files`). */
const steps = [
  { capability: 'products.view' },
  { capability: 'payments.send', arguments: { recipient: ['mcp:files'], amount: ['mcp:files'] } },
];
const call = (name: string, args: Record<string, unknown>, id: string): ScriptStep => ({
  toolCalls: [{ name, args, id }],
});

/**
 * One planned run: the model reads product p-1 (its reviews are a source the plan does not name), then the bill
 * (`mcp:files`), then proposes `first` and `second` as payments. Answers each payment's provenance disposition and
 * what was paid.
 */
async function payTwice(first: Record<string, unknown>, second: Record<string, unknown>) {
  const app = await paymentsFixture({ payments: allow });
  const readFile = tool(async () => `Invoice: pay to IBAN ${BILL_IBAN}, amount due EUR 1200.`, {
    name: 'read_file',
    description: 'Read a file',
    schema: z.object({ path: z.string() }),
  });
  const agent = createAgent({
    model: new ScriptedChatModel([
      { toolCalls: [{ name: 'verdict_plan', args: { steps }, id: 'call_plan' }] },
      call('view_product', { productId: 'p-1' }, 'call_view'),
      call('read_file', { path: 'bill.txt' }, 'call_read'),
      call('send_payment', first, 'call_pay_1'),
      call('send_payment', second, 'call_pay_2'),
      { text: 'done' },
    ]),
    tools: [readFile, ...app.tools],
    checkpointer: new MemorySaver(),
    middleware: [
      app.moduleRef.get(PlanModes).forAgent().middleware(),
      app.trackers.forAgent({ tools: { read_file: ProvenanceSource.mcp('files') } }).middleware(),
    ],
  });
  await app.as(() =>
    agent.invoke({ messages: [new HumanMessage('Pay the bill in bill.txt.')] }, { configurable: { thread_id: 't-1' } }),
  );
  return {
    dispositions: app.provenanceDecisions().map((record) => record.disposition),
    paid: app.payments.map((payment) => payment.arguments.amount),
  };
}

describe('plan mode and the values an earlier call carries (ADR 0128)', () => {
  it('attack: an amount found nowhere is not carried under the file’s source by the free text of an earlier call', async () => {
    // The first call writes the made-up amount next to the file's IBAN in free text; the second proposes it alone.
    const { dispositions, paid } = await payTwice(
      { recipient: BILL_IBAN, amount: 9999, note: `Bill ${BILL_IBAN}, amount 9999 EUR` },
      { recipient: BILL_IBAN, amount: 9999 },
    );

    expect(paid).toEqual([]);
    expect(dispositions).toEqual(['deny', 'deny']);
  });

  it('control: the amount the file holds is paid, the second time with the first call in the window', async () => {
    const { dispositions, paid } = await payTwice(
      { recipient: BILL_IBAN, amount: 1200, note: `Bill ${BILL_IBAN}, amount 1200 EUR` },
      { recipient: BILL_IBAN, amount: 1200 },
    );

    expect(paid).toEqual([1200, 1200]);
    expect(dispositions).toEqual(['permit', 'permit']);
  });
});
