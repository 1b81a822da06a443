import { describe, expect, it } from '@jest/globals';
import {
  Agent,
  type AgentInputItem,
  type Model,
  OpenAIResponsesModel,
  Runner,
  setTracingDisabled,
} from '@openai/agents';
import { ActionContextStore, UnreleasedContextError } from '@verdict/nestjs';
import {
  AgentsModelInputGuards,
  AgentsProvenanceTrackers,
  VerdictAgentsModule,
  VerdictAgentsTools,
} from '@verdict/nestjs/openai-agents';
import { OWN_IBAN, PRODUCT, alice, paymentsFixture } from '../provenance/payments.fixture.js';
import { TRUSTED_ONLY, VIEW, catalogPolicy, local, pay, productRoute } from '../provenance/payments-script.fixture.js';

// What the OpenAI Agents model-input guard lets reach the provider, seen in the request bodies the SDK's own Responses
// model sends (`OpenAIResponsesModel`, whose converter is the SDK's; only the network client is the test's): a function
// result's other fields (ADR 0107), and the function results a run continuing a response the provider keeps sends alone
// (`previousResponseId`, `conversationId`: ADR 0151).

setTracingDisabled(true);

const INSTRUCTIONS = 'Help the customer with products and payments.';
/** A customer record a client could write into a stored run's items. */
const RECORD = JSON.stringify({ email: 'customer72@acme.example', card: '4111 1111 1111 1111' });

/** One scripted model turn: function calls or a final text. */
type Turn = { readonly toolCalls: readonly { name: string; input: unknown; id: string }[] } | { readonly text: string };

/**
 * The OpenAI client's Responses endpoint, scripted: each `responses.create` body is kept, and answered with the next
 * turn as the Responses API writes it, under the id `<prefix>_<n>`.
 */
function responsesClient(turns: readonly Turn[], prefix: string) {
  const bodies: Record<string, unknown>[] = [];
  let next = 0;
  const client = {
    baseURL: 'http://127.0.0.1:9/v1',
    apiKey: 'test-key',
    responses: {
      create: async (body: Record<string, unknown>) => {
        bodies.push(JSON.parse(JSON.stringify(body)) as Record<string, unknown>);
        const turn = turns[next++];
        if (turn === undefined) throw new Error('the scripted provider has no turn left');
        const output =
          'text' in turn
            ? [
                {
                  type: 'message',
                  id: `msg_${next}`,
                  role: 'assistant',
                  status: 'completed',
                  content: [{ type: 'output_text', text: turn.text, annotations: [] }],
                },
              ]
            : turn.toolCalls.map(({ name, input, id }) => ({
                type: 'function_call',
                id: `fc_${id}`,
                call_id: id,
                name,
                arguments: JSON.stringify(input),
                status: 'completed',
              }));
        return {
          id: `${prefix}_${next}`,
          object: 'response',
          status: 'completed',
          output,
          usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 },
        };
      },
    },
  };
  return { model: new OpenAIResponsesModel(client as never, 'gpt-4.1'), bodies };
}

async function agentsSetup() {
  const fixture = await paymentsFixture({
    payments: TRUSTED_ONLY,
    releasePolicies: [catalogPolicy],
    imports: [VerdictAgentsModule],
  });
  const agentsTools = fixture.moduleRef.get(VerdictAgentsTools, { strict: false });
  const tools = [
    agentsTools.bound('products.view', { name: 'view_product' }),
    agentsTools.bound('payments.send', { name: 'send_payment' }),
  ];
  const guard = fixture.moduleRef.get(AgentsModelInputGuards, { strict: false }).forDestination(local, {
    toolResults: {
      view_product: productRoute,
      export_product: { ...productRoute, only: ['*'] },
      send_payment: { ...productRoute, only: ['paid'] },
    },
    systemPrompts: [INSTRUCTIONS],
  });
  const tracker = fixture.moduleRef.get(AgentsProvenanceTrackers, { strict: false }).forAgent();
  const contexts = fixture.moduleRef.get(ActionContextStore);
  /** Alice's run of a tracked, guarded agent on `model`. */
  const run = (
    model: Model,
    input: string | AgentInputItem[],
    options: { previousResponseId?: string; conversationId?: string } = {},
  ) =>
    contexts.run(alice, () =>
      new Runner().run(
        new Agent({ name: 'Support', instructions: INSTRUCTIONS, model: tracker.model(guard.model(model)), tools }),
        input,
        options,
      ),
    );
  return { ...fixture, run };
}

describe('a function result’s other fields (OpenAI Agents guard)', () => {
  const call = { type: 'function_call', callId: 'c1', name: 'view_product', arguments: '{"productId":"p-1"}' };
  const result = (fields: Record<string, unknown>) => ({
    type: 'function_call_result',
    callId: 'c1',
    name: 'view_product',
    status: 'completed',
    output: { type: 'text', text: JSON.stringify(PRODUCT) },
    ...fields,
  });
  /** A run resumed from items a client wrote (a stored run's history), with `input` between two user messages. */
  const resumed = async (items: unknown[]) => {
    const env = await agentsSetup();
    const { model, bodies } = responsesClient([{ text: 'ok' }], 'resp');
    const run = env.run(model, [
      { role: 'user', content: 'Tell me about p-1.' },
      ...(items as AgentInputItem[]),
      { role: 'user', content: 'And its price?' },
    ]);
    return { run, bodies };
  };

  it('attack: a record in a result’s id, which the Responses converter sends, never reaches the provider', async () => {
    const { run, bodies } = await resumed([call, result({ id: RECORD })]);
    await expect(run).rejects.toBeInstanceOf(UnreleasedContextError);
    expect(JSON.stringify(bodies)).not.toContain('4111');
  });

  it('attack: a record in a result’s caller id, which the Responses converter sends, never reaches the provider', async () => {
    const { run, bodies } = await resumed([call, result({ caller: { type: 'program', callerId: RECORD } })]);
    await expect(run).rejects.toBeInstanceOf(UnreleasedContextError);
    expect(JSON.stringify(bodies)).not.toContain('4111');
  });

  it('attack: a record in a field no converter knows fails the run, as on a user message', async () => {
    const { run, bodies } = await resumed([call, result({ metadata: { record: RECORD } })]);
    await expect(run).rejects.toBeInstanceOf(UnreleasedContextError);
    expect(bodies).toHaveLength(0);
  });

  it('control: a result with the fields the SDK writes (a plain id, a direct caller) reaches the provider released', async () => {
    const { run, bodies } = await resumed([call, result({ id: 'fco_1', caller: { type: 'direct' } })]);
    expect((await run).finalOutput).toBe('ok');
    const sent = JSON.stringify(bodies[0]!['input']);
    expect(sent).toContain('Kettle');
    expect(sent).not.toContain('IMPORTANT');
    expect(sent).toContain('fco_1');
  });

  it('control: a normal run’s function results pass, released', async () => {
    const env = await agentsSetup();
    const { model, bodies } = responsesClient(
      [{ toolCalls: [VIEW] }, { toolCalls: [pay(OWN_IBAN)] }, { text: 'done' }],
      'resp',
    );
    await env.run(model, `Show me p-1, then pay 25 to ${OWN_IBAN}.`);
    expect(env.payments.map((payment) => payment.arguments.recipient)).toEqual([OWN_IBAN]);
    expect(bodies).toHaveLength(3);
    expect(JSON.stringify(bodies[1]!['input'])).not.toContain('IMPORTANT');
  });
});

describe('a guarded run that continues a response the provider keeps (OpenAI Agents)', () => {
  it('control: with previousResponseId, the function results the runner sends alone are released, and the payment runs', async () => {
    const env = await agentsSetup();
    const first = responsesClient([{ text: 'Hello! How can I help?' }], 'resp_a');
    await env.run(first.model, 'Hello.');
    const second = responsesClient([{ toolCalls: [VIEW] }, { toolCalls: [pay(OWN_IBAN)] }, { text: 'done' }], 'resp_b');
    await env.run(second.model, `Show me p-1, then pay 25 to ${OWN_IBAN}.`, { previousResponseId: 'resp_a_1' });
    expect(env.payments.map((payment) => payment.arguments.recipient)).toEqual([OWN_IBAN]);
    // The runner sent the provider the function result alone, continuing the response that proposed its call.
    expect(second.bodies[1]).toMatchObject({ previous_response_id: 'resp_b_1' });
    const input = second.bodies[1]!['input'] as { type?: string }[];
    expect(input.map(({ type }) => type)).toEqual(['function_call_output']);
    expect(JSON.stringify(input)).toContain('Kettle');
    expect(JSON.stringify(input)).not.toContain('IMPORTANT');
  });

  it('control: in a stored conversation (conversationId), the same', async () => {
    const env = await agentsSetup();
    const model = responsesClient([{ toolCalls: [VIEW] }, { text: 'Here is p-1.' }], 'resp_c');
    const result = await env.run(model.model, 'Show me p-1.', { conversationId: 'conv_1' });
    expect(result.finalOutput).toBe('Here is p-1.');
    expect(model.bodies[1]).toMatchObject({ conversation: 'conv_1' });
    expect(JSON.stringify(model.bodies[1]!['input'])).not.toContain('IMPORTANT');
  });

  it('attack: a result continuing a response this guard never saw propose its call fails the run before the provider is called', async () => {
    const env = await agentsSetup();
    const { model, bodies } = responsesClient([{ text: 'ok' }], 'resp_d');
    const orphan = {
      type: 'function_call_result',
      callId: 'call_elsewhere',
      name: 'export_product',
      status: 'completed',
      output: { type: 'text', text: RECORD },
    };
    await expect(
      env.run(model, [orphan as AgentInputItem], { previousResponseId: 'resp_elsewhere' }),
    ).rejects.toBeInstanceOf(UnreleasedContextError);
    expect(bodies).toHaveLength(0);
  });

  it('attack: a result renamed after a wider route than the call the continued response proposed fails the run', async () => {
    const env = await agentsSetup();
    const first = responsesClient([{ toolCalls: [VIEW] }], 'resp_e');
    // The provider has no answer to the result: the run fails after the response that proposed the call.
    await env.run(first.model, 'Show me p-1.').catch(() => undefined);
    const { model, bodies } = responsesClient([{ text: 'ok' }], 'resp_f');
    const renamed = {
      type: 'function_call_result',
      callId: VIEW.id,
      name: 'export_product',
      status: 'completed',
      output: { type: 'text', text: JSON.stringify(PRODUCT) },
    };
    await expect(
      env.run(model, [renamed as AgentInputItem], { previousResponseId: 'resp_e_1' }),
    ).rejects.toBeInstanceOf(UnreleasedContextError);
    expect(bodies).toHaveLength(0);
    // Under its call's name, the same result continues the response (control).
    const own = { ...renamed, name: 'view_product' };
    const result = await env.run(model, [own as AgentInputItem], { previousResponseId: 'resp_e_1' });
    expect(result.finalOutput).toBe('ok');
    expect(JSON.stringify(bodies[0]!['input'])).not.toContain('IMPORTANT');
  });
});

describe('a guarded run in a conversation the provider stores (OpenAI Agents)', () => {
  /** The result of the model's call of view_product `callId`, as a client sends it alone. */
  const viewed = (callId: string) =>
    ({
      type: 'function_call_result',
      callId,
      name: 'view_product',
      status: 'completed',
      output: { type: 'text', text: JSON.stringify(PRODUCT) },
    }) as AgentInputItem;

  it('attack: a result for a call an earlier response of the conversation proposed, answered since, fails the run before the provider is called', async () => {
    const env = await agentsSetup();
    // The runner answered the call in the next request, and the model answered in the conversation's latest response.
    const first = responsesClient([{ toolCalls: [VIEW] }, { text: 'Here is p-1.' }], 'resp_g');
    expect((await env.run(first.model, 'Show me p-1.', { conversationId: 'conv_1' })).finalOutput).toBe('Here is p-1.');
    const { model, bodies } = responsesClient([{ text: 'ok' }], 'resp_h');
    await expect(env.run(model, [viewed(VIEW.id)], { conversationId: 'conv_1' })).rejects.toBeInstanceOf(
      UnreleasedContextError,
    );
    expect(bodies).toHaveLength(0);
  });

  /** Alice's conversation conv_1: the runner answered the model's call, and the model called the tool once more. */
  const twoCalls = async (env: Awaited<ReturnType<typeof agentsSetup>>) => {
    const first = responsesClient([{ toolCalls: [VIEW] }, { text: 'Here is p-1.' }], 'resp_g');
    await env.run(first.model, 'Show me p-1.', { conversationId: 'conv_1' });
    // The provider has no answer to the second call's result: the run fails after the response that proposed it.
    const again = responsesClient([{ toolCalls: [{ ...VIEW, id: 'call_view_2' }] }], 'resp_h');
    await env.run(again.model, 'Show me p-1 again.', { conversationId: 'conv_1' }).catch(() => undefined);
  };

  it('attack: a result for a call of a response before the conversation’s latest one fails the run before the provider is called', async () => {
    const env = await agentsSetup();
    await twoCalls(env);
    const { model, bodies } = responsesClient([{ text: 'ok' }], 'resp_i');
    await expect(env.run(model, [viewed(VIEW.id)], { conversationId: 'conv_1' })).rejects.toBeInstanceOf(
      UnreleasedContextError,
    );
    expect(bodies).toHaveLength(0);
  });

  it('control: a result for the call the conversation’s latest response proposed, sent alone, passes released', async () => {
    const env = await agentsSetup();
    await twoCalls(env);
    const { model, bodies } = responsesClient([{ text: 'ok' }], 'resp_i');
    const result = await env.run(model, [viewed('call_view_2')], { conversationId: 'conv_1' });
    expect(result.finalOutput).toBe('ok');
    expect(bodies[0]).toMatchObject({ conversation: 'conv_1' });
    expect(JSON.stringify(bodies[0]!['input'])).toContain('Kettle');
    expect(JSON.stringify(bodies[0]!['input'])).not.toContain('IMPORTANT');
  });
});
