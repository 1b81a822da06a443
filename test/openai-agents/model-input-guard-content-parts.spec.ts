import { afterEach, describe, expect, it } from '@jest/globals';
import {
  Agent,
  type AgentInputItem,
  type Model,
  type ModelRequest,
  OpenAIChatCompletionsModel,
  OpenAIResponsesModel,
  Runner,
  setTracingDisabled,
  system,
} from '@openai/agents';
import type { TestingModule } from '@nestjs/testing';
import { ActionContextStore, UnreleasedContextError } from '@verdict/nestjs';
import { AgentsModelInputGuards, VerdictAgentsModule } from '@verdict/nestjs/openai-agents';
import { alice, paymentsFixture } from '../provenance/payments.fixture.js';
import { TRUSTED_ONLY, catalogPolicy, local, productRoute } from '../provenance/payments-script.fixture.js';
import { ScriptedAgentsModel } from './scripted-agents-model.js';

// Traces would be exported to OpenAI's platform: nothing leaves the test.
setTracingDisabled(true);

const booted: TestingModule[] = [];
afterEach(async () => {
  await Promise.all(booted.splice(0).map((moduleRef) => moduleRef.close()));
});

const INSTRUCTIONS = 'Help the customer with products and payments.';
const customer = { email: 'ada@example.org', card: '4111 1111 1111 1111' };
const record = JSON.stringify(customer);
const fileData = `data:application/json;base64,${Buffer.from(record).toString('base64')}`;

/** A scripted model that also takes streamed calls: it records each request and streams nothing back. */
class StreamingModel extends ScriptedAgentsModel {
  // The base declares no parameter: the request is optional here to keep the override assignable.
  override async *getStreamedResponse(request?: ModelRequest): AsyncIterable<never> {
    if (request !== undefined) this.requests.push(request);
  }
}

/**
 * A guard that registers INSTRUCTIONS, around a scripted model: `call(input)` sends one model call's input
 * through it (as the runner would, with the registered instructions), `streamed(input)` the same as a stream.
 */
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
  const inner = new StreamingModel([{ text: 'ok' }, { text: 'ok' }]);
  const model = guard.model(inner);
  const request = (input: unknown[]) =>
    ({
      systemInstructions: INSTRUCTIONS,
      input: input as AgentInputItem[],
      modelSettings: {},
      tools: [],
      outputType: 'text',
      handoffs: [],
      tracing: false,
    }) as unknown as ModelRequest;
  const call = (input: unknown[]) => model.getResponse(request(input));
  const streamed = async (input: unknown[]) => {
    for await (const _event of model.getStreamedResponse(request(input)));
  };
  const contexts = fixture.moduleRef.get(ActionContextStore);
  return { guard, inner, model, call, streamed, contexts };
}

/** What the inner model (the provider) was sent, as one string. */
const sent = (inner: ScriptedAgentsModel) => JSON.stringify(inner.requests.map((request) => request.input));

describe('the OpenAI Agents model-input guard checks every content part of a user or system message', () => {
  describe('user messages', () => {
    it('attack: a text part whose providerData holds a record (spread into the part sent) fails before the provider is called', async () => {
      const { call, streamed, inner } = await setup();
      const input = [{ role: 'user', content: [{ type: 'input_text', text: 'hello', providerData: { customer } }] }];
      await expect(call(input)).rejects.toBeInstanceOf(UnreleasedContextError);
      await expect(streamed(input)).rejects.toBeInstanceOf(UnreleasedContextError);
      expect(inner.requests).toHaveLength(0);
    });

    it('attack: a record as a part’s providerData text, or in another field of the part, fails', async () => {
      const { call, inner } = await setup();
      for (const part of [
        { type: 'input_text', text: 'hello', providerData: { metadata: record } },
        { type: 'input_text', text: 'hello', metadata: record },
        { type: 'input_text', text: 'hello', metadata: { customer } },
        { type: 'input_text', text: { customer } },
      ])
        await expect(call([{ role: 'user', content: [part] }])).rejects.toBeInstanceOf(UnreleasedContextError);
      expect(inner.requests).toHaveLength(0);
    });

    it('attack: a released contextMessage’s text in a part with a record beside it fails', async () => {
      const { call, guard, contexts, inner } = await setup();
      const released = await guard.contextMessage({ ...productRoute, payload: { name: 'Kettle', price: 25 } });
      const part = { type: 'input_text', text: released.content as string, providerData: { customer } };
      await expect(contexts.run(alice, () => call([{ role: 'user', content: [part] }]))).rejects.toBeInstanceOf(
        UnreleasedContextError,
      );
      expect(inner.requests).toHaveLength(0);
    });

    it('control: a plain text part, a string, a part with plain providerData and a prompt-cache breakpoint pass', async () => {
      const { call, streamed, inner } = await setup();
      await call([
        { role: 'user', content: 'hello' },
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'What does p-1 cost?' },
            {
              type: 'input_text',
              text: 'Thanks.',
              providerData: { note: 'typed' },
              promptCacheBreakpoint: { mode: 'explicit' },
            },
          ],
        },
      ]);
      await streamed([{ role: 'user', content: [{ type: 'input_text', text: 'hello' }] }]);
      expect(inner.requests).toHaveLength(2);
      expect(sent(inner)).toContain('What does p-1 cost?');
    });

    it('control: a released contextMessage passes, as a string and as a plain text part', async () => {
      const { call, guard, contexts, inner } = await setup();
      const released = await guard.contextMessage({ ...productRoute, payload: { name: 'Kettle', price: 25 } });
      await contexts.run(alice, () =>
        call([released, { role: 'user', content: [{ type: 'input_text', text: released.content as string }] }]),
      );
      expect(sent(inner)).toContain('Kettle');
    });
  });

  describe('system messages (the converters send their content as it is)', () => {
    it('attack: a system message whose only part is a file fails before the provider is called', async () => {
      const { call, inner } = await setup();
      await expect(
        call([
          { role: 'system', content: [{ type: 'input_file', file_data: fileData }] },
          { role: 'user', content: 'hi' },
        ]),
      ).rejects.toBeInstanceOf(UnreleasedContextError);
      expect(inner.requests).toHaveLength(0);
    });

    it('attack: an image part, a file beside the registered prompt, or content that is neither text nor parts, fails', async () => {
      const { call, inner } = await setup();
      for (const content of [
        [{ type: 'input_image', image: fileData }],
        [
          { type: 'input_text', text: INSTRUCTIONS },
          { type: 'input_file', file: fileData },
        ],
        { customer },
        [customer],
      ])
        await expect(call([{ role: 'system', content }])).rejects.toBeInstanceOf(UnreleasedContextError);
      expect(inner.requests).toHaveLength(0);
    });

    it('attack: the registered prompt as a text part with a record in its providerData or beside it fails', async () => {
      const { call, inner } = await setup();
      for (const part of [
        { type: 'input_text', text: INSTRUCTIONS, providerData: { customer } },
        { type: 'input_text', text: INSTRUCTIONS, providerData: { customer: record } },
        { type: 'input_text', text: INSTRUCTIONS, metadata: { customer } },
        { type: 'input_text', text: '', providerData: { customer } },
      ])
        await expect(call([{ role: 'system', content: [part] }])).rejects.toBeInstanceOf(UnreleasedContextError);
      expect(inner.requests).toHaveLength(0);
    });

    it('attack: the registered prompt as a text part with prose beside it, in providerData or another field, fails', async () => {
      const { call, streamed, inner } = await setup();
      const note = 'card 4111 1111 1111 1111 of ada@example.org';
      for (const part of [
        { type: 'input_text', text: INSTRUCTIONS, providerData: { note } },
        { type: 'input_text', text: INSTRUCTIONS, note },
        { type: 'input_text', text: INSTRUCTIONS, promptCacheBreakpoint: { mode: 'explicit', note } },
        { type: 'input_text', text: INSTRUCTIONS, promptCacheBreakpoint: note },
      ]) {
        const input = [{ role: 'system', content: [part] }];
        await expect(call(input)).rejects.toBeInstanceOf(UnreleasedContextError);
        await expect(streamed(input)).rejects.toBeInstanceOf(UnreleasedContextError);
      }
      expect(inner.requests).toHaveLength(0);
    });

    it('control: the registered prompt as a text part with a prompt-cache breakpoint passes', async () => {
      const { call, inner } = await setup();
      await call([
        {
          role: 'system',
          content: [{ type: 'input_text', text: INSTRUCTIONS, promptCacheBreakpoint: { mode: 'explicit' } }],
        },
        { role: 'user', content: 'hello' },
      ]);
      expect(inner.requests).toHaveLength(1);
    });

    it('control: the registered prompt passes as a string and as a plain text part; an empty one passes', async () => {
      const { call, inner } = await setup();
      await call([
        { role: 'system', content: INSTRUCTIONS },
        { role: 'system', content: [{ type: 'input_text', text: INSTRUCTIONS }] },
        { role: 'system', content: '' },
        { role: 'system', content: [] },
        { role: 'user', content: 'hello' },
      ]);
      expect(inner.requests).toHaveLength(1);
      expect(sent(inner)).toContain(INSTRUCTIONS);
    });

    it('control: an unregistered prompt still fails, as a string and as a text part', async () => {
      const { call, inner } = await setup();
      for (const content of ['Another prompt.', [{ type: 'input_text', text: 'Another prompt.' }]])
        await expect(call([{ role: 'system', content }])).rejects.toBeInstanceOf(UnreleasedContextError);
      expect(inner.requests).toHaveLength(0);
    });
  });

  describe('a system message’s own providerData (the converters spread it into the message they send)', () => {
    const note = 'card 4111 1111 1111 1111 of ada@example.org';

    /** The provider's API as the SDK's own models call it: it records each request body and answers none. */
    const offline = () => {
      const bodies: unknown[] = [];
      const create = (body: unknown) => {
        bodies.push(body);
        return Promise.reject(new Error('provider offline'));
      };
      const client = {
        baseURL: 'https://api.example.test/v1',
        responses: { create },
        chat: { completions: { create } },
      };
      return { client: client as never, sent: () => JSON.stringify(bodies), bodies };
    };
    /** A real Runner run of an agent whose model is `base` behind the guard, on `input`. */
    const runOn = async (base: Model, input: unknown[]) => {
      const { guard, contexts } = await setup();
      const agent = new Agent({ name: 'Support', instructions: INSTRUCTIONS, model: guard.model(base) });
      return contexts.run(alice, () => new Runner().run(agent, input as AgentInputItem[]));
    };
    const models = [
      ['Responses', (client: never) => new OpenAIResponsesModel(client, 'gpt-test')],
      ['Chat Completions', (client: never) => new OpenAIChatCompletionsModel(client, 'gpt-test')],
    ] as const;

    it.each(models)(
      'attack: prose in the options of system(prompt, options) never reaches the provider (%s)',
      async (_, model) => {
        for (const options of [{ note }, { name: `Ada Lovelace, ${note}` }]) {
          const provider = offline();
          const input = [system(INSTRUCTIONS, options), { role: 'user', content: 'hello' }];
          await expect(runOn(model(provider.client), input)).rejects.toBeInstanceOf(UnreleasedContextError);
          expect(provider.bodies).toHaveLength(0);
        }
      },
    );

    it('attack: a scalar or plain name in a system message’s providerData fails, called and streamed', async () => {
      const { call, streamed, inner } = await setup();
      for (const providerData of [{ note }, { name: 'Ada' }, { account: 4111111111111111 }]) {
        const input = [{ role: 'system', content: INSTRUCTIONS, providerData }];
        await expect(call(input)).rejects.toBeInstanceOf(UnreleasedContextError);
        await expect(streamed(input)).rejects.toBeInstanceOf(UnreleasedContextError);
      }
      expect(inner.requests).toHaveLength(0);
    });

    it.each(models)('control: system(prompt) without options reaches the provider (%s)', async (_, model) => {
      const provider = offline();
      const input = [system(INSTRUCTIONS), { role: 'user', content: 'hello' }];
      await expect(runOn(model(provider.client), input)).rejects.toThrow('provider offline');
      expect(provider.bodies).toHaveLength(1);
      expect(provider.sent()).toContain(INSTRUCTIONS);
      expect(provider.sent()).toContain('hello');
    });

    it('control: an empty providerData on a system message, and plain providerData on a user message, pass', async () => {
      const { call, inner } = await setup();
      await call([
        { role: 'system', content: INSTRUCTIONS, providerData: {} },
        { role: 'user', content: 'hello', providerData: { note: 'typed' } },
      ]);
      expect(inner.requests).toHaveLength(1);
    });
  });

  describe('a message’s own fields (the Responses converter sends its id)', () => {
    it('attack: a record in a user or system message’s id, or in another field of the message, fails', async () => {
      const { call, streamed, inner } = await setup();
      for (const message of [
        { role: 'user', id: record, content: 'hello' },
        { role: 'user', type: 'message', id: record, content: [{ type: 'input_text', text: 'hello' }] },
        { role: 'user', content: 'hello', metadata: { customer } },
        { role: 'system', id: record, content: INSTRUCTIONS },
        { role: 'system', content: INSTRUCTIONS, metadata: record },
      ]) {
        await expect(call([message])).rejects.toBeInstanceOf(UnreleasedContextError);
        await expect(streamed([message])).rejects.toBeInstanceOf(UnreleasedContextError);
      }
      expect(inner.requests).toHaveLength(0);
    });

    it('control: an ordinary item id passes on a user and a system message', async () => {
      const { call, inner } = await setup();
      await call([
        { role: 'system', id: 'msg_122', content: INSTRUCTIONS },
        { type: 'message', role: 'user', id: 'msg_123', content: 'hello' },
      ]);
      expect(inner.requests).toHaveLength(1);
      expect(sent(inner)).toContain('msg_123');
    });
  });

  it('in a real Runner: a record in a user text part’s providerData fails the run; the plain part passes (control)', async () => {
    const { model, inner, contexts } = await setup();
    const agent = new Agent({ name: 'Support', instructions: INSTRUCTIONS, model });
    const run = (part: object) =>
      contexts.run(alice, () => new Runner().run(agent, [{ role: 'user', content: [part] }] as AgentInputItem[]));
    await expect(run({ type: 'input_text', text: 'hello', providerData: { customer } })).rejects.toBeInstanceOf(
      UnreleasedContextError,
    );
    expect(inner.requests).toHaveLength(0);
    expect((await run({ type: 'input_text', text: 'hello' })).finalOutput).toBe('ok');
  });
});
