import { describe, expect, it } from '@jest/globals';
import { type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { MemorySaver } from '@langchain/langgraph';
import { type AgentMiddleware, createAgent } from 'langchain';
import { z } from 'zod';
import { DataClass, Destination, ProvenanceSource, ReleasePolicy, Source, Trust } from '@verdict/nestjs';
import { ModelInputGuards, PlanModes, QuarantinedReaders } from '@verdict/nestjs/langchain';
import { ScriptedChatModel, type ScriptStep } from '@verdict/nestjs/testing/langchain';
import { PRODUCT, paymentsFixture } from '../provenance/payments.fixture.js';
import { BILL, BILL_IBAN, INJECTION, TYPED_IBAN, billSchema, payTheBill } from '../quarantine/bill.fixture.js';

/**
 * The model-input guard with quarantined reading (docs/quarantine.md §2, docs/context-release.md §6): quarantined
 * reading answers a handle in place of an untrusted result, a message the guard never sealed, so the guard must
 * release it: `[guard, reading, tracker]` (plan mode first). The order without it, `[reading, tracker, guard]`, ends
 * the run before the model reads the unreleased handle.
 */

const local = Destination.connection('ollama', 'local-machine');
const files = Source.external('files');
const route = (only: string[]) => ({ source: files, trust: Trust.Untrusted, classification: DataClass.Public, only });
const HANDLE = ['result', 'quarantined', 'sources', 'read_with'];
const INJECTED_REVIEW = PRODUCT.reviews[1]!.text;

type Order = 'guard,reading,tracker' | 'plan,guard,reading,tracker' | 'reading,tracker,guard';

const allow = { untrustedContext: 'allow', arguments: { recipient: 'allow' } } as const;
const deny = { untrustedContext: 'deny', arguments: { recipient: 'trusted_only' } } as const;

async function run(order: Order, script: ScriptStep[], payments: typeof allow | typeof deny = allow) {
  const quarantined = new ScriptedChatModel([{ text: JSON.stringify({ iban: BILL_IBAN, amount: 120 }) }], {
    label: 'quarantined',
  });
  const app = await paymentsFixture({
    payments,
    quarantine: { model: quarantined },
    releasePolicies: [
      ReleasePolicy.route(files, local)
        .allow({ classes: [DataClass.Public], trust: [Trust.Untrusted] })
        .detectWith([]),
    ],
  });
  const readFile = tool(async () => BILL, {
    name: 'read_file',
    description: 'Read a file',
    schema: z.object({ path: z.string() }),
  });
  const guard = app.moduleRef.get(ModelInputGuards).forDestination(local, {
    toolResults: {
      read_file: route(HANDLE),
      view_product: route(HANDLE),
      quarantine_extract: route(['iban', 'amount']),
      verdict_plan: route(['result']),
      send_payment: route(['paid']),
    },
  });
  const byName: Record<string, AgentMiddleware> = {
    plan: app.moduleRef.get(PlanModes).forAgent().middleware(),
    guard: guard.middleware(),
    reading: app.moduleRef
      .get(QuarantinedReaders)
      .forAgent({ schemas: { bill: billSchema } })
      .middleware(),
    tracker: app.trackers.forAgent({ tools: { read_file: ProvenanceSource.mcp('files') } }).middleware(),
  };
  const model = new ScriptedChatModel(script, { label: 'deciding' });
  const agent = createAgent({
    model,
    tools: [readFile, ...app.tools],
    checkpointer: new MemorySaver(),
    middleware: order.split(',').map((name) => byName[name]!),
  });
  let error: unknown;
  try {
    await app.as(() =>
      agent.invoke(
        { messages: [new HumanMessage('Pay the bill in bill.txt.')] },
        { configurable: { thread_id: 't-1' } },
      ),
    );
  } catch (caught) {
    error = caught;
  }
  const shown = model.transcript
    .flatMap((messages: BaseMessage[]) =>
      messages.map(({ content }) => (typeof content === 'string' ? content : JSON.stringify(content))),
    )
    .join('\n');
  return { error, shown, paid: app.payments.map((payment) => payment.arguments), calls: model.transcript.length };
}

/** The cause chain's error names and messages. */
function causes(error: unknown): string {
  const lines: string[] = [];
  for (let e = error as { name?: string; message?: string; cause?: unknown } | undefined; e; e = e.cause as typeof e)
    lines.push(`${e.name}: ${e.message}`);
  return lines.join('\n');
}

const payFromFile = { capability: 'payments.send', arguments: { recipient: ['mcp:files'], amount: ['mcp:files'] } };
const plan: ScriptStep = { toolCalls: [{ name: 'verdict_plan', args: { steps: [payFromFile] }, id: 'call_plan' }] };
const viewProduct: ScriptStep[] = [
  { toolCalls: [{ name: 'view_product', args: { productId: 'p-1' }, id: 'call_view' }] },
  { text: 'Read it.' },
];

describe('the model-input guard with quarantined reading', () => {
  it('utility: [guard, reading, tracker] pays the bill through its handle and extraction', async () => {
    const { error, shown, paid } = await run('guard,reading,tracker', payTheBill());
    expect(error).toBeUndefined();
    expect(shown).toContain('"quarantined"');
    expect(paid).toEqual([{ recipient: BILL_IBAN, amount: 120 }]);
  });

  it('utility: [plan, guard, reading, tracker] pays the bill within a plan naming the file', async () => {
    const { error, paid } = await run('plan,guard,reading,tracker', [plan, ...payTheBill()]);
    expect(error).toBeUndefined();
    expect(paid).toEqual([{ recipient: BILL_IBAN, amount: 120 }]);
  });

  it("utility: [guard, reading, tracker] labels the released handle as Verdict's own: the typed IBAN is paid", async () => {
    const readThenPay: ScriptStep[] = [
      { toolCalls: [{ name: 'read_file', args: { path: 'bill.txt' }, id: 'call_read' }] },
      { toolCalls: [{ name: 'send_payment', args: { recipient: TYPED_IBAN, amount: 120 }, id: 'call_pay' }] },
      { text: 'done' },
    ];
    const { error, paid } = await run('guard,reading,tracker', readThenPay, deny);
    expect(error).toBeUndefined();
    expect(paid).toEqual([{ recipient: TYPED_IBAN, amount: 120 }]);
  });

  it("attack: [guard, reading, tracker] never shows the deciding model a file's injection", async () => {
    const { shown } = await run('guard,reading,tracker', payTheBill());
    expect(shown).not.toContain(INJECTION);
  });

  it("attack: [guard, reading, tracker] quarantines a bound result's untrusted part before the guard releases it", async () => {
    const { error, shown } = await run('guard,reading,tracker', viewProduct);
    expect(error).toBeUndefined();
    expect(shown).toContain('"sources":["external:product-reviews"]');
    expect(shown).not.toContain(INJECTED_REVIEW);
  });

  it('fails closed: [reading, tracker, guard] ends the run on the unsealed handle, before the model reads it', async () => {
    const { error, shown, paid, calls } = await run('reading,tracker,guard', payTheBill());
    expect(causes(error)).toMatch(/UnreleasedContextError: Message \d+ \(tool\) was not released/);
    expect(calls).toBe(1);
    expect(shown).not.toContain(INJECTION);
    expect(paid).toEqual([]);
  });
});
