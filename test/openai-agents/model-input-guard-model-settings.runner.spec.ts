import { afterEach, describe, expect, it } from '@jest/globals';
import {
  Agent,
  type AgentInputItem,
  type Model,
  type ModelRequest,
  type ModelSettings,
  OpenAIChatCompletionsModel,
  OpenAIResponsesModel,
  Runner,
  setTracingDisabled,
} from '@openai/agents';
import type { TestingModule } from '@nestjs/testing';
import { ActionContextStore, UnreleasedContextError } from '@verdict/nestjs';
import { AgentsModelInputGuards, VerdictAgentsModule } from '@verdict/nestjs/openai-agents';
import { alice, paymentsFixture } from '../provenance/payments.fixture.js';
import { TRUSTED_ONLY, catalogPolicy, local } from '../provenance/payments-script.fixture.js';

// docs/runtimes/openai-agents.md, ADR 0132: an agent's model settings are sent beside its input. The SDK's Responses
// and Chat Completions models spread `modelSettings.providerData` into the request last (the Responses model its
// `extra_body` too), so its `instructions` replace the instructions the guard checked and its `metadata` goes with
// them: `instructions` there passes as the agent's instructions do, and every other setting holds no data.

setTracingDisabled(true);

const booted: TestingModule[] = [];
afterEach(async () => {
  await Promise.all(booted.splice(0).map((moduleRef) => moduleRef.close()));
});

const INSTRUCTIONS = 'Help the customer with products and payments.';
const customer = { name: 'Ada Lovelace', email: 'ada@example.org', card: '4111 1111 1111 1111' };
const RECORD = JSON.stringify(customer);
/** Instructions nobody registered, in plain prose: a customer's details beside the registered prompt. */
const UNREGISTERED = `${INSTRUCTIONS} The customer is Ada Lovelace, ada@example.org, card 4111 1111 1111 1111.`;

/**
 * The OpenAI client as the SDK's own models call it, scripted: each Responses or Chat Completions request body is
 * kept and answered with `ok`.
 */
function provider() {
  const bodies: Record<string, unknown>[] = [];
  const keep = (body: Record<string, unknown>) =>
    bodies.push(JSON.parse(JSON.stringify(body)) as Record<string, unknown>);
  const client = {
    baseURL: 'http://127.0.0.1:9/v1',
    apiKey: 'test-key',
    responses: {
      create: async (body: Record<string, unknown>) => {
        keep(body);
        return {
          id: `resp_${bodies.length}`,
          object: 'response',
          status: 'completed',
          output: [
            {
              type: 'message',
              id: `msg_${bodies.length}`,
              role: 'assistant',
              status: 'completed',
              content: [{ type: 'output_text', text: 'ok', annotations: [] }],
            },
          ],
          usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 },
        };
      },
    },
    chat: {
      completions: {
        create: async (body: Record<string, unknown>) => {
          keep(body);
          return {
            id: `chatcmpl_${bodies.length}`,
            object: 'chat.completion',
            created: 1,
            model: 'gpt-4.1',
            choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
            usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
          };
        },
      },
    },
  };
  return { client: client as never, bodies, sent: () => JSON.stringify(bodies) };
}

const models = [
  ['Responses', (client: never): Model => new OpenAIResponsesModel(client, 'gpt-4.1')],
  ['Chat Completions', (client: never): Model => new OpenAIChatCompletionsModel(client, 'gpt-4.1')],
] as const;

/** A guard that registers INSTRUCTIONS; `run(base, settings)` is Alice's run of an agent with `settings` on `base`. */
async function setup() {
  const fixture = await paymentsFixture({
    payments: TRUSTED_ONLY,
    releasePolicies: [catalogPolicy],
    imports: [VerdictAgentsModule],
  });
  booted.push(fixture.moduleRef);
  const guard = fixture.moduleRef
    .get(AgentsModelInputGuards, { strict: false })
    .forDestination(local, { toolResults: {}, systemPrompts: [INSTRUCTIONS] });
  const contexts = fixture.moduleRef.get(ActionContextStore);
  const run = (base: Model, modelSettings: ModelSettings) =>
    contexts.run(alice, () =>
      new Runner().run(
        new Agent({ name: 'Support', instructions: INSTRUCTIONS, model: guard.model(base), modelSettings }),
        'What does p-1 cost?',
      ),
    );
  return { guard, run };
}

describe('an agent’s model settings, which the SDK’s models send beside its input (OpenAI Agents guard)', () => {
  it.each(models)(
    'attack: instructions in providerData, which replace the agent’s, never reach the provider unless registered (%s)',
    async (_, model) => {
      const { run } = await setup();
      const { client, bodies } = provider();
      await expect(run(model(client), { providerData: { instructions: UNREGISTERED } })).rejects.toBeInstanceOf(
        UnreleasedContextError,
      );
      expect(bodies).toHaveLength(0);
    },
  );

  it.each(models)('attack: a customer record in providerData never reaches the provider (%s)', async (_, model) => {
    const { run } = await setup();
    const { client, bodies } = provider();
    for (const providerData of [
      { metadata: customer },
      { metadata: { customer } },
      { metadata: { customer: RECORD } },
      { user: RECORD },
      { prompt: { id: 'pmpt_1', variables: { customer: RECORD } } },
      { input: [{ role: 'user', content: RECORD }] },
      { messages: [{ role: 'system', content: UNREGISTERED }] },
      // The request's own content, in control tokens alone: it would replace the input the guard checked.
      { input: [{ role: 'user', content: 'hello' }] },
      { messages: [{ role: 'user', content: 'hello' }] },
      { prompt: { id: 'pmpt_1', variables: { customer: 'c-42' } } },
      { extra_body: { input: [{ role: 'user', content: 'hello' }] } },
      { extra_body: { instructions: UNREGISTERED } },
      { extraBody: { metadata: { customer } } },
      { extra_headers: { 'x-customer': RECORD } },
    ])
      await expect(run(model(client), { providerData })).rejects.toBeInstanceOf(UnreleasedContextError);
    expect(bodies).toHaveLength(0);
  });

  it('attack: a record in another setting the Responses model sends (reasoning, text, context management) fails', async () => {
    const { run } = await setup();
    const { client, bodies } = provider();
    for (const settings of [
      { reasoning: { effort: 'low', summary: RECORD } },
      { text: { verbosity: 'low', customer } },
      { contextManagement: [{ type: 'compaction', customer: RECORD }] },
      { promptCacheOptions: { mode: 'explicit', key: { customer } } },
    ])
      await expect(run(models[0][1](client), settings as ModelSettings)).rejects.toBeInstanceOf(UnreleasedContextError);
    expect(bodies).toHaveLength(0);
  });

  it('attack: unregistered instructions in providerData fail a streamed call before the provider is called', async () => {
    const { guard } = await setup();
    const { client, bodies } = provider();
    const request = {
      systemInstructions: INSTRUCTIONS,
      input: [{ role: 'user', content: 'hello' }] as AgentInputItem[],
      modelSettings: { providerData: { instructions: UNREGISTERED } },
      tools: [],
      outputType: 'text',
      handoffs: [],
      tracing: false,
    } as unknown as ModelRequest;
    const streamed = async () => {
      for await (const _event of guard.model(models[0][1](client)).getStreamedResponse(request));
    };
    await expect(streamed()).rejects.toBeInstanceOf(UnreleasedContextError);
    expect(bodies).toHaveLength(0);
  });

  it.each(models)('control: plain settings and plain provider data reach the provider (%s)', async (_, model) => {
    const { run } = await setup();
    const { client, bodies } = provider();
    const result = await run(model(client), {
      temperature: 0.2,
      store: false,
      reasoning: { effort: 'low' },
      text: { verbosity: 'low' },
      providerData: {
        prompt_cache_key: 'support-v1',
        service_tier: 'flex',
        user: 'user-72',
        extra_headers: { 'x-app': 'storefront' },
      },
    });
    expect(result.finalOutput).toBe('ok');
    expect(bodies).toHaveLength(1);
    expect(bodies[0]).toMatchObject({
      temperature: 0.2,
      store: false,
      prompt_cache_key: 'support-v1',
      service_tier: 'flex',
      user: 'user-72',
    });
  });

  it.each(models)('control: nested control options in providerData reach the provider (%s)', async (_, model) => {
    const { run } = await setup();
    const { client, bodies } = provider();
    const result = await run(model(client), { providerData: { reasoning: { effort: 'low', summary: 'auto' } } });
    expect(result.finalOutput).toBe('ok');
    expect(bodies[0]).toMatchObject({ reasoning: { effort: 'low', summary: 'auto' } });
  });

  it.each(models)('control: the registered instructions, or none, in providerData pass (%s)', async (_, model) => {
    const { run } = await setup();
    const { client, bodies, sent } = provider();
    for (const instructions of [INSTRUCTIONS, ''])
      expect((await run(model(client), { providerData: { instructions } })).finalOutput).toBe('ok');
    expect(bodies).toHaveLength(2);
    expect(sent()).toContain(INSTRUCTIONS);
  });

  it('control: a context-management entry with plain fields reaches the Responses provider', async () => {
    const { run } = await setup();
    const { client, bodies } = provider();
    await run(models[0][1](client), { contextManagement: [{ type: 'compaction', compactThreshold: 2000 }] });
    expect(bodies[0]).toMatchObject({ context_management: [{ type: 'compaction', compact_threshold: 2000 }] });
  });
});
