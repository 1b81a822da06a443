import { describe, expect, it } from '@jest/globals';
import { type ModelMessage, generateText, jsonSchema, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4, convertArrayToReadableStream } from 'ai/test';
import { type ActionContext, ActionContextStore, UnreleasedContextError } from '@verdict/nestjs';
import { AiSdkModelInputGuards, VerdictAiSdkModule } from '@verdict/nestjs/ai-sdk';
import { PRODUCT, alice, paymentsFixture } from '../provenance/payments.fixture.js';
import { TRUSTED_ONLY, VIEW, catalogPolicy, local, productRoute } from '../provenance/payments-script.fixture.js';

// A tool the application runs outside the generation (no `execute`: a client-side tool) answered in the next
// generation, which continues the response that proposed the call (`providerOptions.openai.previousResponseId`) or the
// conversation the provider stores (`providerOptions.openai.conversation`) and sends only the new messages: the tool
// result alone (ADR 0151).

type GenerateResult = Awaited<ReturnType<MockLanguageModelV4['doGenerate']>>;
const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** The AI SDK's mock model answering `contents` in order, each response under the id `<prefix>_<n>`. */
function respondingModel(contents: GenerateResult['content'][], prefix: string): MockLanguageModelV4 {
  const results: GenerateResult[] = contents.map((content, index) => {
    const unified = content.some((part) => part.type === 'tool-call') ? 'tool-calls' : 'stop';
    return {
      content,
      finishReason: { unified, raw: unified },
      usage,
      warnings: [],
      response: { id: `${prefix}_${index + 1}` },
    } as GenerateResult;
  });
  return new MockLanguageModelV4({ doGenerate: results });
}

type StreamResult = Awaited<ReturnType<MockLanguageModelV4['doStream']>>;
type StreamPart = StreamResult['stream'] extends ReadableStream<infer P> ? P : never;

/** The same first turn, streamed: the response's id, then the model's call of view_product. */
function streamedCall(id: string): MockLanguageModelV4 {
  const parts: StreamPart[] = [
    { type: 'response-metadata', id },
    viewCall('view_product'),
    { type: 'finish', usage, finishReason: { unified: 'tool-calls', raw: 'tool-calls' } },
  ];
  return new MockLanguageModelV4({ doStream: [{ stream: convertArrayToReadableStream(parts) }] });
}

/** Another actor of Alice's tenant, naming her conversation id. */
const mallory: ActionContext = { actor: { id: 'mallory' }, tenant: 'acme', metadata: { conversationId: 'c-1' } };

const viewCall = (name: string, toolCallId = VIEW.id) => ({
  type: 'tool-call' as const,
  toolCallId,
  toolName: name,
  input: JSON.stringify(VIEW.input),
});

async function setup() {
  const fixture = await paymentsFixture({
    payments: TRUSTED_ONLY,
    releasePolicies: [catalogPolicy],
    imports: [VerdictAiSdkModule],
  });
  const guard = fixture.moduleRef.get(AiSdkModelInputGuards, { strict: false }).forDestination(local, {
    toolResults: { view_product: productRoute, export_product: { ...productRoute, only: ['*'] } },
  });
  const contexts = fixture.moduleRef.get(ActionContextStore);
  /** Client-side tools: the application runs them and answers in the next generation. */
  const tools = {
    view_product: tool({ inputSchema: jsonSchema<{ productId: string }>({ type: 'object' }) }),
    export_product: tool({ inputSchema: jsonSchema<{ productId: string }>({ type: 'object' }) }),
  };
  const generate = (
    inner: MockLanguageModelV4,
    messages: ModelMessage[],
    previousResponseId?: string,
    who: ActionContext = alice,
  ) =>
    contexts.run(who, () =>
      generateText({
        model: wrapLanguageModel({ model: inner, middleware: guard.middleware() }),
        tools,
        messages,
        stopWhen: stepCountIs(3),
        ...(previousResponseId === undefined ? {} : { providerOptions: { openai: { previousResponseId } } }),
      }),
    );
  /** Alice's generation in the conversation `conversation` the provider stores. */
  const inConversation = (inner: MockLanguageModelV4, messages: ModelMessage[], conversation: string) =>
    contexts.run(alice, () =>
      generateText({
        model: wrapLanguageModel({ model: inner, middleware: guard.middleware() }),
        tools,
        messages,
        stopWhen: stepCountIs(3),
        providerOptions: { openai: { conversation } },
      }),
    );
  const stream = (inner: MockLanguageModelV4, messages: ModelMessage[]) =>
    contexts.run(alice, async () => {
      const result = streamText({
        model: wrapLanguageModel({ model: inner, middleware: guard.middleware() }),
        tools,
        messages,
        stopWhen: stepCountIs(3),
      });
      await result.consumeStream();
    });
  return { ...fixture, generate, inConversation, stream };
}

/** The application's answer to the model's call of view_product (`toolCallId`), sent under `toolName`. */
const answer = (toolName: string, toolCallId = VIEW.id): ModelMessage[] => [
  {
    role: 'tool',
    content: [{ type: 'tool-result', toolCallId, toolName, output: { type: 'json', value: PRODUCT } }],
  },
];

describe('a guarded generation that continues a response the provider keeps (AI SDK)', () => {
  it('control: the result of a call the continued response proposed, sent alone, is released and reaches the model', async () => {
    const env = await setup();
    const first = respondingModel([[viewCall('view_product')]], 'resp_a');
    await env.generate(first, [{ role: 'user', content: 'Show me p-1.' }]);
    const second = respondingModel([[{ type: 'text', text: 'It costs 25.' }]], 'resp_b');
    const result = await env.generate(second, answer('view_product'), 'resp_a_1');
    expect(result.text).toBe('It costs 25.');
    const sent = JSON.stringify(second.doGenerateCalls[0]!.prompt);
    expect(sent).toContain('Kettle');
    expect(sent).not.toContain('IMPORTANT');
  });

  it('attack: a result for a call no response this guard passed proposed is refused before the provider is called', async () => {
    const env = await setup();
    const second = respondingModel([[{ type: 'text', text: 'ok' }]], 'resp_b');
    await expect(env.generate(second, answer('view_product'), 'resp_elsewhere')).rejects.toBeInstanceOf(
      UnreleasedContextError,
    );
    expect(second.doGenerateCalls).toHaveLength(0);
  });

  it('attack: a result renamed after a wider route than its call’s is refused before the provider is called', async () => {
    const env = await setup();
    const first = respondingModel([[viewCall('view_product')]], 'resp_a');
    await env.generate(first, [{ role: 'user', content: 'Show me p-1.' }]);
    const second = respondingModel([[{ type: 'text', text: 'ok' }]], 'resp_b');
    await expect(env.generate(second, answer('export_product'), 'resp_a_1')).rejects.toBeInstanceOf(
      UnreleasedContextError,
    );
    expect(second.doGenerateCalls).toHaveLength(0);
  });

  it('control: the same after a streamed response', async () => {
    const env = await setup();
    await env.stream(streamedCall('resp_s_1'), [{ role: 'user', content: 'Show me p-1.' }]);
    const second = respondingModel([[{ type: 'text', text: 'It costs 25.' }]], 'resp_b');
    const result = await env.generate(second, answer('view_product'), 'resp_s_1');
    expect(result.text).toBe('It costs 25.');
    expect(JSON.stringify(second.doGenerateCalls[0]!.prompt)).not.toContain('IMPORTANT');
  });

  it('attack: another actor continuing Alice’s response cannot answer her call: refused before the provider is called', async () => {
    const env = await setup();
    const first = respondingModel([[viewCall('view_product')]], 'resp_a');
    await env.generate(first, [{ role: 'user', content: 'Show me p-1.' }]);
    const second = respondingModel([[{ type: 'text', text: 'ok' }]], 'resp_b');
    await expect(env.generate(second, answer('view_product'), 'resp_a_1', mallory)).rejects.toBeInstanceOf(
      UnreleasedContextError,
    );
    expect(second.doGenerateCalls).toHaveLength(0);
  });
});

describe('a guarded generation in a conversation the provider stores (AI SDK)', () => {
  it('attack: a result for a call the model proposed responses ago, answered since, is refused before the provider is called', async () => {
    const env = await setup();
    await env.inConversation(respondingModel([[viewCall('view_product')]], 'resp_a'), ask('Show me p-1.'), 'conv_1');
    const answered = respondingModel([[{ type: 'text', text: 'It costs 25.' }]], 'resp_b');
    expect((await env.inConversation(answered, answer('view_product'), 'conv_1')).text).toBe('It costs 25.');
    // The same result sent again, later in the conversation: the call it answers is not its latest response's.
    const replayed = respondingModel([[{ type: 'text', text: 'ok' }]], 'resp_c');
    await expect(env.inConversation(replayed, answer('view_product'), 'conv_1')).rejects.toBeInstanceOf(
      UnreleasedContextError,
    );
    expect(replayed.doGenerateCalls).toHaveLength(0);
  });

  /** Alice's conversation conv_1: the model calls view_product, its result answers it, and the model calls it again. */
  const twoCalls = async (env: Awaited<ReturnType<typeof setup>>) => {
    await env.inConversation(respondingModel([[viewCall('view_product')]], 'resp_a'), ask('Show me p-1.'), 'conv_1');
    const again = respondingModel([[viewCall('view_product', 'call_view_2')]], 'resp_b');
    await env.inConversation(again, answer('view_product'), 'conv_1');
  };

  it('attack: a result for a call of a response before the latest one is refused before the provider is called', async () => {
    const env = await setup();
    await twoCalls(env);
    const stale = respondingModel([[{ type: 'text', text: 'ok' }]], 'resp_c');
    await expect(env.inConversation(stale, answer('view_product'), 'conv_1')).rejects.toBeInstanceOf(
      UnreleasedContextError,
    );
    expect(stale.doGenerateCalls).toHaveLength(0);
  });

  it('control: the result of the call its latest response proposed, sent alone, is released and reaches the model', async () => {
    const env = await setup();
    await twoCalls(env);
    const latest = respondingModel([[{ type: 'text', text: 'Still 25.' }]], 'resp_c');
    const result = await env.inConversation(latest, answer('view_product', 'call_view_2'), 'conv_1');
    expect(result.text).toBe('Still 25.');
    const sent = JSON.stringify(latest.doGenerateCalls[0]!.prompt);
    expect(sent).toContain('Kettle');
    expect(sent).not.toContain('IMPORTANT');
  });
});

/** A user message. */
function ask(text: string): ModelMessage[] {
  return [{ role: 'user', content: text }];
}
