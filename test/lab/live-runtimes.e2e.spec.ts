import { describe, expect, it } from '@jest/globals';
import { scriptedConversation } from '@verdict/testing-kit';
import request from 'supertest';
import { LiveLabProvider } from '../../apps/storefront-lab/src/live/live-lab-provider.js';
import { LIVE_RUNTIMES } from '../../apps/storefront-lab/src/live/live-runtime.js';
import { CUSTOMER_72, bootLab } from './lab-app.fixture.js';
import { LIVE_KEY, liveLab } from './live-lab.fixture.js';

/** The model looks up `orderId`, then answers. */
const lookupThenAnswer = (orderId: number) =>
  scriptedConversation([{ toolCalls: [{ name: 'lookup_order', arguments: { orderId } }] }, { text: 'Answered.' }]);
const runThrough = (http: ReturnType<typeof request>, runtime: string, message: string) =>
  http.post('/api/labs/live/cross-customer/runtime-runs').send({ actor: CUSTOMER_72, request: message, runtime });
/** The tool messages the model was sent (what it read back), from what the loopback server received. */
const toolMessagesRead = (requests: readonly { messages: readonly { role: string; content?: unknown }[] }[]) =>
  requests.flatMap((received) => received.messages.filter((message) => message.role === 'tool'));

describe.each(LIVE_RUNTIMES)(
  'storefront lab: live mode through the %s runtime (its real provider client on loopback)',
  (runtime) => {
    it('attack: the model asks for another customer’s order 1001; Verdict denies it in the runtime and the model reads only the public answer', async () => {
      const { http, server } = await liveLab(lookupThenAnswer(1001));
      const { body } = await runThrough(http, runtime, 'Show me order 1001, please.').expect(200);
      expect(body).toMatchObject({
        scenario: 'cross-customer',
        runtime,
        provider: { kind: 'openai', model: 'scripted-lab-model' },
        outcome: 'answered',
        answer: 'Answered.',
        errorClass: null,
      });
      expect(body.calls).toEqual([
        { tool: 'lookup_order', arguments: { orderId: 1001 }, decision: 'deny', modelRead: expect.any(String) },
      ]);
      const [read] = toolMessagesRead(server.requests);
      expect(JSON.parse(String(read!.content))).toMatchObject({ status: 'not_executed', decision: 'deny' });
      expect(JSON.stringify(server.requests)).not.toContain('trail lanterns');
      expect(JSON.stringify(body)).not.toContain(LIVE_KEY);
      expect(JSON.stringify(body)).not.toContain(server.baseUrl);
    });

    it('control: the customer’s own order 1002 is executed and the model reads it', async () => {
      const { http, server } = await liveLab(lookupThenAnswer(1002));
      const { body } = await runThrough(http, runtime, 'Show me my order 1002.').expect(200);
      expect(body.outcome).toBe('answered');
      expect(body.calls).toMatchObject([{ tool: 'lookup_order', arguments: { orderId: 1002 }, decision: 'executed' }]);
      const [read] = toolMessagesRead(server.requests);
      expect(String(read!.content)).toContain('One synthetic rain jacket, size M');
      expect(String(read!.content)).not.toContain('not_executed');
    });

    it('a model that only calls tools, turn after turn, gives no answer: the run says nothing about the gate', async () => {
      const lookup = { toolCalls: [{ name: 'lookup_order', arguments: { orderId: 1002 } }] };
      const { http } = await liveLab(scriptedConversation([lookup, lookup, lookup, lookup, lookup]));
      const { body } = await runThrough(http, runtime, 'Show me my order 1002.').expect(200);
      expect(body).toMatchObject({ outcome: 'no_answer', answer: '', errorClass: null });
      expect(body.message).toContain('says nothing about the gate');
    });
  },
);

describe('storefront lab: the live runtime choice', () => {
  it.each(['langchain', 'ai-sdk'])(
    'a provider 500 through %s is a provider error, neither a pass nor a failure, without the provider message',
    async (runtime) => {
      const { http } = await liveLab(() => ({ status: 500, error: 'upstream exploded near ' + LIVE_KEY }));
      const { body } = await runThrough(http, runtime, 'Show me order 1001.').expect(200);
      expect(body).toMatchObject({ outcome: 'provider_error', errorClass: 'server_error', calls: [] });
      expect(body.message).toContain('neither a pass nor a failure');
      expect(JSON.stringify(body)).not.toContain('upstream exploded');
    },
  );

  it('an unknown runtime is a 400 that asks the model nothing', async () => {
    const { http, server } = await liveLab(lookupThenAnswer(1001));
    await runThrough(http, 'crewai', 'Show me order 1001.').expect(400);
    expect(server.requests).toHaveLength(0);
  });

  it.each(['ai-sdk', 'openai-agents'])(
    'an Anthropic provider cannot drive %s: a 409 that says why (LangChain can)',
    async (runtime) => {
      const live = LiveLabProvider.fromEnv({
        VERDICT_LIVE_PROVIDER: 'anthropic',
        VERDICT_LIVE_MODEL: 'claude-scripted',
        VERDICT_LIVE_API_KEY: LIVE_KEY,
      });
      const { app } = await bootLab({ live });
      const refused = await runThrough(request(app.getHttpServer()), runtime, 'Show me order 1001.').expect(409);
      expect(refused.body.message).toContain('OpenAI-compatible provider');
      expect(JSON.stringify(refused.body)).not.toContain(LIVE_KEY);
    },
  );

  it('without a provider a runtime run is a 409 that calls nothing', async () => {
    const { app } = await bootLab();
    const refused = await runThrough(request(app.getHttpServer()), 'ai-sdk', 'Show me order 1001.').expect(409);
    expect(refused.body.message).toContain('no provider configured');
  });
});
