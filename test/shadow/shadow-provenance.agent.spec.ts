import { afterEach, describe, expect, it } from '@jest/globals';
import { HumanMessage } from '@langchain/core/messages';
import { MemorySaver } from '@langchain/langgraph';
import { EventEmitter2, EventEmitterModule } from '@nestjs/event-emitter';
import { createAgent } from 'langchain';
import { ShadowDecisionRecorded, type ProvenancePolicy } from '@verdict/nestjs';
import { ScriptedChatModel } from '@verdict/nestjs/testing/langchain';
import { ATTACKER_IBAN, alice, paymentsFixture, type PaymentsSetup } from '../provenance/payments.fixture.js';

const VIEW = { name: 'view_product', args: { productId: 'p-1' }, id: 'call_view' };
const PAY = { name: 'send_payment', args: { recipient: ATTACKER_IBAN, amount: 25 }, id: 'call_pay' };

const modules: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(modules.splice(0).map((moduleRef) => moduleRef.close()));
});

/** A real createAgent loop: the model reads the product with its injected review, then pays the attacker's IBAN. */
async function run(setup: PaymentsSetup) {
  const fixture = await paymentsFixture({ ...setup, imports: [EventEmitterModule.forRoot()] });
  modules.push(fixture.moduleRef);
  const events: ShadowDecisionRecorded[] = [];
  fixture.moduleRef.get(EventEmitter2).on(ShadowDecisionRecorded.event, (event: ShadowDecisionRecorded) => {
    events.push(event);
  });
  const model = new ScriptedChatModel([{ toolCalls: [VIEW] }, { toolCalls: [PAY] }, { text: 'done' }]);
  const agent = createAgent({
    model,
    tools: fixture.tools,
    checkpointer: new MemorySaver(),
    middleware: [fixture.trackers.forAgent().middleware()],
  });
  const config = { configurable: { thread_id: `thread-${Math.random()}` } };
  const state = (await fixture.as(() =>
    agent.invoke({ messages: [new HumanMessage('Tell me about product p-1.')] }, config),
  )) as { __interrupt__?: unknown[] };
  const records = () =>
    fixture.evidence
      .decisions()
      .filter((record) => record.capability === 'payments.send')
      .map((record) => `${record.stage}:${record.disposition}`);
  return { ...fixture, model, state, events, records };
}

/** The enforced rule asked for confirmation: the shadowed one is recorded would_deny, nothing is paid, the run pauses. */
function expectAskedBeforePaying({ payments, records, state }: Awaited<ReturnType<typeof run>>): void {
  expect(payments).toEqual([]);
  expect(records()).toEqual([
    'provenance:would_deny',
    'provenance:require_confirmation',
    'proposal:permit',
    'approval:require_confirmation',
  ]);
  expect(state.__interrupt__).toHaveLength(1);
}

/** The records of a payment a shadowed provenance rule would have refused: the would-be refusal, then the run. */
const PAID_AFTER_WOULD_DENY = [
  'provenance:would_deny',
  'provenance:permit',
  'proposal:permit',
  'target_refresh:permit',
  'execution:permit',
];

const SHADOWED_RECIPIENT: ProvenancePolicy = {
  untrustedContext: 'allow',
  arguments: { recipient: { rule: 'trusted_only', enforce: false } },
};

describe('shadow mode: provenance (a real createAgent loop, scripted model, provenance tracker)', () => {
  it('control: a shadowed trusted_only rule lets the payment run, recorded as would_deny naming the path, never the value', async () => {
    const { payments, records, events, evidence } = await run({ payments: SHADOWED_RECIPIENT });
    expect(payments.map((payment) => payment.arguments.recipient)).toEqual([ATTACKER_IBAN]);
    expect(records()).toEqual(PAID_AFTER_WOULD_DENY);
    const [shadowed] = evidence.decisions().filter((record) => record.disposition === 'would_deny');
    expect(shadowed!.reason).toContain('Argument recipient matches content from external:product-reviews (untrusted)');
    expect(JSON.stringify(evidence.decisions())).not.toMatch(/de89/i);
    expect(events.map((event) => [event.capability, event.stage, event.disposition])).toEqual([
      ['payments.send', 'provenance', 'would_deny'],
    ]);
    expect(JSON.stringify(events)).not.toMatch(/de89/i);
  });

  it('attack: the enforced context rule next to the shadowed one still refuses the payment', async () => {
    const { payments, records, events, model } = await run({
      payments: { ...SHADOWED_RECIPIENT, untrustedContext: 'deny' },
    });
    expect(payments).toEqual([]);
    expect(records()).toEqual(['provenance:deny']);
    expect(events).toEqual([]);
    expect(model.toolMessages().at(-1)?.content).toBe(
      JSON.stringify({ status: 'not_executed', capability: 'payments.send', decision: 'deny', message: 'Not done.' }),
    );
  });

  it('control: a shadowed context rule lets the payment run, recorded as would_deny', async () => {
    const { payments, records, events } = await run({
      payments: { untrustedContext: { rule: 'deny', enforce: false } },
    });
    expect(payments.map((payment) => payment.arguments.recipient)).toEqual([ATTACKER_IBAN]);
    expect(records()).toEqual(PAID_AFTER_WOULD_DENY);
    expect(events.map((event) => [event.capability, event.stage, event.disposition])).toEqual([
      ['payments.send', 'provenance', 'would_deny'],
    ]);
  });

  it('attack: the same context rule enforced refuses the payment', async () => {
    const { payments, records, events } = await run({
      payments: { untrustedContext: { rule: 'deny', enforce: true } },
    });
    expect(payments).toEqual([]);
    expect(records()).toEqual(['provenance:deny']);
    expect(events).toEqual([]);
  });

  it('attack: a shadowed context rule never lifts strict mode, whose fallback still asks for confirmation', async () => {
    const outcome = await run({
      payments: { untrustedContext: { rule: 'deny', enforce: false } },
      provenance: { strict: true },
    });
    expectAskedBeforePaying(outcome);
  });

  it('control: the same rule enforced refuses the payment', async () => {
    const { payments, records } = await run({
      payments: { untrustedContext: 'allow', arguments: { recipient: { rule: 'trusted_only', enforce: true } } },
    });
    expect(payments).toEqual([]);
    expect(records()).toEqual(['provenance:deny']);
  });

  it('a capability in shadow mode asks nobody: would_confirm at provenance and approval, no receipt, and the payment runs', async () => {
    const { payments, records, state, approvals, events } = await run({
      payments: { untrustedContext: 'allow', arguments: { recipient: 'require_confirmation' } },
      confirmPayments: true,
      enforcePayments: false,
    });
    expect(state.__interrupt__ ?? []).toEqual([]);
    expect(payments).toHaveLength(1);
    expect(records()).toEqual([
      'provenance:would_confirm',
      'provenance:permit',
      'proposal:permit',
      'approval:would_confirm',
      'target_refresh:permit',
      'execution:permit',
      'approval:would_confirm',
    ]);
    expect(await approvals.pending(['call_pay'], alice)).toEqual([]);
    expect(events.map((event) => `${event.stage}:${event.disposition}`)).toEqual([
      'provenance:would_confirm',
      'approval:would_confirm',
      'approval:would_confirm',
    ]);
  });

  it('attack: a shadowed rule on an argument never lifts strict mode, whose fallback still asks for confirmation', async () => {
    const asked = run({
      payments: { untrustedContext: 'allow', arguments: { recipient: { rule: 'trusted_only', enforce: false } } },
      provenance: { strict: true },
    });
    expectAskedBeforePaying(await asked);
  });

  it('control: outside strict mode the same shadowed rule lets the payment run, recorded as would_deny', async () => {
    const { payments, records } = await run({
      payments: { untrustedContext: 'allow', arguments: { recipient: { rule: 'trusted_only', enforce: false } } },
    });
    expect(payments).toHaveLength(1);
    expect(records()[0]).toBe('provenance:would_deny');
  });

  it("attack: a shadowed rule on a destination never drops the destination's enforced derived-from-trusted rule", async () => {
    const asked = run({
      payments: {
        untrustedContext: 'allow',
        destinations: ['recipient'],
        arguments: { recipient: { rule: 'trusted_only', enforce: false } },
      },
    });
    expectAskedBeforePaying(await asked);
  });

  it('control: a destination with an enforced explicit rule of its own follows that rule', async () => {
    const { payments } = await run({
      payments: { untrustedContext: 'allow', destinations: ['recipient'], arguments: { recipient: 'allow' } },
    });
    expect(payments).toHaveLength(1);
  });
});
