import { describe, expect, it } from '@jest/globals';
import { HumanMessage } from '@langchain/core/messages';
import { MemorySaver } from '@langchain/langgraph';
import { createAgent } from 'langchain';
import { DataClass, Destination, ReleasePolicy, Source, Trust } from '@verdict/nestjs';
import { ModelInputGuards, PlanModes } from '@verdict/nestjs/langchain';
import { ScriptedChatModel, type ScriptStep } from '@verdict/nestjs/testing/langchain';
import { ATTACKER_IBAN, OWN_IBAN, paymentsFixture } from '../provenance/payments.fixture.js';

/**
 * Plan mode with the model-input guard, in the documented order `[plan, tracker, guard]`: the guard releases the plan
 * tool's answer as `{"result":"Plan accepted (…)."}`. That is still Verdict's own answer (trusted `application:plan`),
 * labelled by the text the plan tool returned: a payment the plan allows to the IBAN the customer typed is made.
 */

const local = Destination.connection('ollama', 'local-machine');
const agentSource = Source.application('agent');
const route = (only: string[]) => ({
  source: agentSource,
  trust: Trust.Untrusted,
  classification: DataClass.Public,
  only,
});

async function planThenPay(script: ScriptStep[]) {
  const app = await paymentsFixture({
    payments: { untrustedContext: 'deny', arguments: { recipient: 'trusted_only' } },
    releasePolicies: [
      ReleasePolicy.route(agentSource, local)
        .allow({ classes: [DataClass.Public], trust: [Trust.Untrusted] })
        .detectWith([]),
    ],
  });
  const guard = app.moduleRef.get(ModelInputGuards).forDestination(local, {
    toolResults: {
      verdict_plan: route(['result']),
      view_product: route(['id', 'name', 'price', 'reviews']),
      send_payment: route(['paid']),
    },
  });
  const plans = app.moduleRef.get(PlanModes).forAgent();
  const model = new ScriptedChatModel([
    {
      toolCalls: [
        {
          name: 'verdict_plan',
          args: { steps: [{ capability: 'products.view' }, { capability: 'payments.send' }] },
          id: 'call_plan',
        },
      ],
    },
    ...script,
    { text: 'Done.' },
  ]);
  const agent = createAgent({
    model,
    tools: app.tools,
    checkpointer: new MemorySaver(),
    middleware: [plans.middleware(), app.trackers.forAgent().middleware(), guard.middleware()],
  });
  await app.as(() =>
    agent.invoke(
      { messages: [new HumanMessage(`Check the kettle, then pay 25 to ${OWN_IBAN}.`)] },
      { configurable: { thread_id: 'thread-1' } },
    ),
  );
  return {
    planAnswer: String(model.toolMessages()[0]?.content),
    shown: model.toolMessages().map((message) => String(message.content)),
    paid: app.payments.map((payment) => payment.arguments.recipient),
    refusals: app.provenanceDecisions().filter((record) => record.disposition === 'deny'),
  };
}

const pay = (recipient: string, id = 'call_pay'): ScriptStep => ({
  toolCalls: [{ name: 'send_payment', args: { recipient, amount: 25 }, id }],
});
const viewProduct: ScriptStep = { toolCalls: [{ name: 'view_product', args: { productId: 'p-1' }, id: 'call_view' }] };

describe('plan mode behind the model-input guard ([plan, tracker, guard])', () => {
  it("utility: the plan tool's answer, released as {result}, stays Verdict's own: the typed IBAN is paid", async () => {
    const run = await planThenPay([pay(OWN_IBAN)]);
    expect(run.planAnswer).toMatch(/^\{"result":"Plan accepted \(/);
    expect(run.refusals).toEqual([]);
    expect(run.paid).toEqual([OWN_IBAN]);
  });

  it('attack: the IBAN an injected review asks for, read through the guard after the plan, is refused', async () => {
    const run = await planThenPay([viewProduct, pay(ATTACKER_IBAN)]);
    expect(run.shown[1]).toContain('DE89 3704 0044');
    expect(run.paid).toEqual([]);
    expect(run.refusals.map((record) => record.reason)).toEqual([
      expect.stringContaining('argument recipient comes from a source the plan did not name'),
    ]);
  });
});
