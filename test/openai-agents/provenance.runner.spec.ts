import { describe, expect, it } from '@jest/globals';
import { Agent, type AgentInputItem, type Model, Runner, handoff, setTracingDisabled } from '@openai/agents';
import { ActionContextStore, UnreleasedContextError, readNotExecutedMessage } from '@verdict/nestjs';
import {
  AgentsModelInputGuards,
  AgentsProvenanceTrackers,
  VerdictAgentsModule,
  VerdictAgentsTools,
} from '@verdict/nestjs/openai-agents';
import {
  ATTACKER_IBAN,
  OWN_IBAN,
  PRODUCT,
  alice,
  paymentsFixture,
  type PaymentsSetup,
} from '../provenance/payments.fixture.js';
import {
  TRUSTED_ONLY,
  VIEW,
  catalogPolicy,
  local,
  pay,
  productRoute,
  readAndPay,
} from '../provenance/payments-script.fixture.js';
import { type AgentsTurn, ScriptedAgentsModel } from './scripted-agents-model.js';

// Traces would be exported to OpenAI's platform: nothing leaves the test.
setTracingDisabled(true);

const INSTRUCTIONS = 'Help the customer with products and payments.';

async function setup(setup: PaymentsSetup = { payments: TRUSTED_ONLY }) {
  const fixture = await paymentsFixture({ ...setup, imports: [VerdictAgentsModule] });
  const agentsTools = fixture.moduleRef.get(VerdictAgentsTools, { strict: false });
  const viewProduct = agentsTools.bound('products.view', { name: 'view_product' });
  const sendPayment = agentsTools.bound('payments.send', { name: 'send_payment' });
  const trackers = fixture.moduleRef.get(AgentsProvenanceTrackers, { strict: false });
  const guards = fixture.moduleRef.get(AgentsModelInputGuards, { strict: false });
  const contexts = fixture.moduleRef.get(ActionContextStore);
  /** One agent with both tools, its scripted model wrapped by `wrap`. */
  const agent = (turns: AgentsTurn[], wrap: (model: Model) => Model = (model) => model) => {
    const model = new ScriptedAgentsModel(turns);
    return {
      model,
      agent: new Agent({
        name: 'Support',
        instructions: INSTRUCTIONS,
        model: wrap(model),
        tools: [viewProduct, sendPayment],
      }),
    };
  };
  const run = (start: Agent, input: string) => contexts.run(alice, () => new Runner().run(start, input));
  return { ...fixture, viewProduct, sendPayment, trackers, guards, agent, run };
}

/** What the tools answered the model in a run. */
function toolOutputs(result: { newItems: readonly { type: string }[] }): unknown[] {
  return result.newItems
    .filter((item) => item.type === 'tool_call_output_item')
    .map((item) => (item as unknown as { output: unknown }).output);
}

describe('the provenance tracker as an OpenAI Agents model wrapper, in a real Runner', () => {
  it('attack: refuses a payment to the IBAN an injected review supplied', async () => {
    const env = await setup();
    const { agent } = env.agent(readAndPay(ATTACKER_IBAN), (model) => env.trackers.forAgent().model(model));
    const result = await env.run(agent, 'Tell me about product p-1.');
    expect(env.payments).toHaveLength(0);
    expect(readNotExecutedMessage(toolOutputs(result)[1] as string)?.decision).toBe('deny');
    expect(env.provenanceDecisions()[0]!.reason).toContain(
      'Argument recipient matches content from external:product-reviews (untrusted)',
    );
  });

  it('control: pays the IBAN the customer typed, although the reviews were in the window', async () => {
    const env = await setup();
    const { agent } = env.agent(readAndPay(OWN_IBAN), (model) => env.trackers.forAgent().model(model));
    await env.run(agent, `Show me p-1, then pay 25 to ${OWN_IBAN}.`);
    expect(env.payments.map((p) => p.arguments.recipient)).toEqual([OWN_IBAN]);
    expect(env.provenanceDecisions()[0]).toMatchObject({ disposition: 'permit' });
  });

  it('without the tracker the same call is unobserved and refused (what the wrapper adds)', async () => {
    const env = await setup();
    const { agent } = env.agent(readAndPay(OWN_IBAN));
    await env.run(agent, `Show me p-1, then pay 25 to ${OWN_IBAN}.`);
    expect(env.payments).toHaveLength(0);
    expect(env.provenanceDecisions()[0]!.reason).toContain('not observed');
  });
});

describe('a handoff keeps the actor and the provenance window', () => {
  /** A reader agent reads the product and hands off to a payer agent, which pays `recipient`. */
  async function readThenHandOff(question: string, recipient: string) {
    const env = await setup();
    const payerModel = new ScriptedAgentsModel([{ toolCalls: [pay(recipient)] }, { text: 'paid' }]);
    const payer = new Agent({
      name: 'Payer',
      instructions: 'Send the payments the customer asked for.',
      model: env.trackers.forAgent({ agent: 'payer' }).model(payerModel),
      tools: [env.sendPayment],
    });
    const transfer = handoff(payer);
    const readerModel = new ScriptedAgentsModel([
      { toolCalls: [VIEW] },
      { toolCalls: [{ name: transfer.toolName, input: {}, id: 'call_handoff' }] },
    ]);
    const reader = new Agent({
      name: 'Reader',
      instructions: 'Read products; hand payments to the payer.',
      model: env.trackers.forAgent({ agent: 'reader' }).model(readerModel),
      tools: [env.viewProduct],
      handoffs: [transfer],
    });
    const result = await env.run(reader, question);
    return { env, result, payerModel };
  }

  it('attack: the payer agent, handed the conversation, still cannot pay the IBAN the review injected', async () => {
    const { env, result, payerModel } = await readThenHandOff('Tell me about product p-1.', ATTACKER_IBAN);
    expect(result.lastAgent?.name).toBe('Payer');
    expect(payerModel.requests).toHaveLength(2);
    expect(env.payments).toHaveLength(0);
    expect(env.provenanceDecisions()[0]!.reason).toContain('external:product-reviews');
  });

  it('control: the payer agent pays the IBAN the customer typed, as the customer', async () => {
    const { env, result } = await readThenHandOff(`Show me p-1, then pay 25 to ${OWN_IBAN}.`, OWN_IBAN);
    expect(result.lastAgent?.name).toBe('Payer');
    expect(env.payments.map((p) => p.arguments.recipient)).toEqual([OWN_IBAN]);
    expect(env.payments[0]!.context.actor).toEqual(alice.actor);
  });
});

describe('the model-input guard as an OpenAI Agents model wrapper', () => {
  const guarded = (env: Awaited<ReturnType<typeof setup>>, toolResults: Record<string, typeof productRoute>) => {
    const guard = env.guards.forDestination(local, { toolResults, systemPrompts: [INSTRUCTIONS] });
    return (model: Model) => env.trackers.forAgent().model(guard.model(model));
  };

  it('attack: a function result without a release route fails the run before the provider reads it', async () => {
    const env = await setup({ payments: TRUSTED_ONLY, releasePolicies: [catalogPolicy] });
    const { agent, model } = env.agent(readAndPay(OWN_IBAN), guarded(env, {}));
    await expect(env.run(agent, 'Tell me about p-1.')).rejects.toBeInstanceOf(UnreleasedContextError);
    expect(model.requests).toHaveLength(1);
  });

  it('control: a routed result reaches the model as its projection only, and the payment runs', async () => {
    const env = await setup({ payments: TRUSTED_ONLY, releasePolicies: [catalogPolicy] });
    const { agent, model } = env.agent(
      readAndPay(OWN_IBAN),
      guarded(env, { view_product: productRoute, send_payment: { ...productRoute, only: ['paid'] } }),
    );
    await env.run(agent, `Show me p-1, then pay 25 to ${OWN_IBAN}.`);
    expect(model.requests).toHaveLength(3);
    const read = JSON.stringify(model.requests[1]!.input);
    expect(read).toContain('Kettle');
    expect(read).not.toContain('IMPORTANT');
    expect(env.payments).toHaveLength(1);
  });

  it('attack: instructions the application did not register fail the run; the provider is not called', async () => {
    const env = await setup({ payments: TRUSTED_ONLY, releasePolicies: [catalogPolicy] });
    const guard = env.guards.forDestination(local, { toolResults: {}, systemPrompts: ['Another prompt.'] });
    const { agent, model } = env.agent([{ text: 'hi' }], (inner) => guard.model(inner));
    await expect(env.run(agent, 'hello')).rejects.toBeInstanceOf(UnreleasedContextError);
    expect(model.requests).toHaveLength(0);
  });

  it('attack: structured data typed as the user’s message is refused; released through contextMessage it passes (control)', async () => {
    const env = await setup({ payments: TRUSTED_ONLY, releasePolicies: [catalogPolicy] });
    const guard = env.guards.forDestination(local, { toolResults: {}, systemPrompts: [INSTRUCTIONS] });
    const { agent } = env.agent([{ text: 'ok' }], (inner) => guard.model(inner));
    const data = { name: 'Kettle', price: 25 };
    await expect(env.run(agent, JSON.stringify(data))).rejects.toBeInstanceOf(UnreleasedContextError);
    const released = await guard.contextMessage({ ...productRoute, payload: data });
    const { agent: second } = env.agent([{ text: 'ok' }], (inner) => guard.model(inner));
    const contexts = env.moduleRef.get(ActionContextStore);
    const result = await contexts.run(alice, () =>
      new Runner().run(second, [released, { role: 'user', content: 'What does it cost?' }]),
    );
    expect(result.finalOutput).toBe('ok');
  });

  describe('items of a resumed input', () => {
    const record = JSON.stringify({ email: 'customer72@acme.example', card: '4111 1111 1111 1111' });
    const call = { type: 'function_call', callId: 'c1', name: 'view_product', arguments: '{"productId":"p-1"}' };
    const result = (name: string) => ({
      type: 'function_call_result',
      callId: 'c1',
      name,
      status: 'completed',
      output: { type: 'text', text: JSON.stringify(PRODUCT) },
    });
    /** A run of `input` through a guard that releases view_product's name and price, and export_product's whole result. */
    const resumed = async (input: unknown[]) => {
      const env = await setup({ payments: TRUSTED_ONLY, releasePolicies: [catalogPolicy] });
      const guard = env.guards.forDestination(local, {
        toolResults: { view_product: productRoute, export_product: { ...productRoute, only: ['*'] } },
        systemPrompts: [INSTRUCTIONS],
      });
      const { agent, model } = env.agent([{ text: 'ok' }], (inner) => guard.model(inner));
      const run = env.run(agent, [
        { role: 'user', content: 'Tell me about p-1.' },
        ...(input as AgentInputItem[]),
        { role: 'user', content: 'And its reviews?' },
      ] as never);
      return { run, model };
    };

    it('attack: a result renamed after a function with a wider route fails the run; under its call’s name it is released through that route (control)', async () => {
      const renamed = await resumed([call, result('export_product')]);
      await expect(renamed.run).rejects.toBeInstanceOf(UnreleasedContextError);
      expect(renamed.model.requests).toHaveLength(0);
      const own = await resumed([call, result('view_product')]);
      expect((await own.run).finalOutput).toBe('ok');
      const read = JSON.stringify(own.model.requests[0]!.input);
      expect(read).toContain('Kettle');
      expect(read).not.toContain('IMPORTANT');
    });

    it('attack: the output of a shell or apply-patch tool run in the application has no route and fails the run', async () => {
      const shell = [
        { type: 'shell_call', callId: 's1', status: 'completed', action: { commands: ['cat customers.csv'] } },
        {
          type: 'shell_call_output',
          callId: 's1',
          output: [{ stdout: record, stderr: '', outcome: { type: 'exit', exitCode: 0 } }],
        },
      ];
      const patch = [
        {
          type: 'apply_patch_call',
          callId: 'p1',
          status: 'completed',
          operation: { type: 'delete_file', path: 'customers.csv' },
        },
        { type: 'apply_patch_call_output', callId: 'p1', status: 'completed', output: record },
      ];
      for (const items of [shell, patch]) {
        const { run, model } = await resumed(items);
        await expect(run).rejects.toBeInstanceOf(UnreleasedContextError);
        expect(model.requests).toHaveLength(0);
      }
    });

    it('attack: a record in a stored prompt’s variables fails the run; a plain variable passes (control)', async () => {
      const env = await setup({ payments: TRUSTED_ONLY, releasePolicies: [catalogPolicy] });
      const guard = env.guards.forDestination(local, { toolResults: {}, systemPrompts: [INSTRUCTIONS] });
      const run = (customer: string) => {
        const model = new ScriptedAgentsModel([{ text: 'ok' }]);
        const agent = new Agent({
          name: 'Support',
          instructions: INSTRUCTIONS,
          prompt: { promptId: 'pmpt_support', variables: { customer } },
          model: guard.model(model),
        });
        return { model, result: env.run(agent, 'hello') };
      };
      const smuggled = run(record);
      await expect(smuggled.result).rejects.toBeInstanceOf(UnreleasedContextError);
      expect(smuggled.model.requests).toHaveLength(0);
      expect((await run('Ada').result).finalOutput).toBe('ok');
    });

    it('attack: data in a user message’s providerData (sent with it) fails the run; the same text alone passes (control)', async () => {
      const smuggled = await resumed([{ role: 'user', content: 'hello', providerData: { metadata: record } }]);
      await expect(smuggled.run).rejects.toBeInstanceOf(UnreleasedContextError);
      expect(smuggled.model.requests).toHaveLength(0);
      const plain = await resumed([{ role: 'user', content: 'hello' }]);
      expect((await plain.run).finalOutput).toBe('ok');
    });
  });
});
