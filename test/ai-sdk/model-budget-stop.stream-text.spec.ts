import { afterEach, describe, expect, it } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import {
  createUIMessageStream,
  jsonSchema,
  simulateReadableStream,
  stepCountIs,
  streamText,
  tool,
  wrapLanguageModel,
} from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import {
  type ActionContext,
  ActionContextStore,
  InMemoryBudgetStore,
  MissingActionContextError,
  ModelBudgetExceededError,
  ModelBudgetGate,
  UnpricedModelError,
} from '@verdict/nestjs';
import { aiSdkModelBudget } from '@verdict/nestjs/ai-sdk';
import { alice, documentsFixture } from '../pipeline/documents.fixture.js';

/**
 * docs/budgets.md, ADR 0199: under `streamText`, a model call the budget refuses rejects the generation with the
 * budget's error as it is — at the first step or a later one — as under `generateText`. The SDK turns an error of
 * the middleware's `wrapStream` into an `error` part: `text` then rejected with `NoOutputGeneratedError`, or, after a
 * tool step, resolved with that step's answer as if the generation had ended.
 */
const booted: TestingModule[] = [];
afterEach(async () => {
  await Promise.all(booted.splice(0).map((moduleRef) => moduleRef.close()));
});

/** Every call is estimated at 60 input tokens and asks for 40 output tokens at most: 100 reserved. */
const MAX_OUTPUT = 40;
/** What the provider reports for each call: 100 tokens. */
const usage = {
  inputTokens: { total: 90, noCache: 90, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 10, text: 10, reasoning: undefined },
};
type StreamResult = Awaited<ReturnType<MockLanguageModelV4['doStream']>>;
const answerTurn = (text: string): StreamResult => ({
  stream: simulateReadableStream({
    chunks: [
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: text },
      { type: 'text-end', id: 't' },
      { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
    ],
  }),
});
/** A step that says something and calls the `lookup` tool. */
const lookupTurn = (): StreamResult => ({
  stream: simulateReadableStream({
    chunks: [
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'Let me look that up.' },
      { type: 'text-end', id: 't' },
      { type: 'tool-call', toolCallId: 'call_1', toolName: 'lookup', input: '{}' },
      { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool-calls' }, usage },
    ],
  }),
});

async function setup(limit: number, measure: 'tokens' | 'cost' = 'tokens') {
  // One instant for the whole test: the budget's hourly window cannot roll over between a call and its standing.
  const now = new Date();
  const { moduleRef } = await documentsFixture().boot({
    clock: () => now,
    budgets: new InMemoryBudgetStore(),
    actorKey: (actor: { id: string }) => actor.id,
    modelBudgets: {
      prices: { 'mock-small': { input: 1, output: 1 } },
      budgets: [{ name: 'budget', measure, limit, per: 'actor', window: 3_600 }],
    },
  });
  booted.push(moduleRef);
  const contexts = moduleRef.get(ActionContextStore);
  const gate = moduleRef.get(ModelBudgetGate);
  const middleware = aiSdkModelBudget(gate, contexts, { estimateInputTokens: () => 60 });
  const lookups: unknown[] = [];
  const tools = {
    lookup: tool({
      inputSchema: jsonSchema<Record<string, never>>({ type: 'object' }),
      execute: async (input) => {
        lookups.push(input);
        return 'Order 7 ships tomorrow.';
      },
    }),
  };
  /** One `streamText` of `turns` (a tool step, then an answer) as `who` (`null`: outside any action context). */
  const stream = (who: ActionContext | null, turns: StreamResult[], modelId = 'mock-small') => {
    const mock = new MockLanguageModelV4({ modelId, doStream: turns });
    const model = wrapLanguageModel({ model: mock, middleware });
    const generate = () =>
      streamText({ model, prompt: 'Where is order 7?', tools, maxOutputTokens: MAX_OUTPUT, stopWhen: stepCountIs(4) });
    return { mock, result: who === null ? generate() : contexts.run(who, generate) };
  };
  const remaining = async () => (await gate.standing(alice))[0]!.remaining;
  return { stream, remaining, lookups };
}

/** What a result promise came to: its value, or the error it rejected with. */
const settled = <T>(promise: PromiseLike<T>) =>
  Promise.resolve(promise).then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );

describe('a model budget stop under the AI SDK streamText', () => {
  it('control: within budget, the generation runs its tool step and answers; the reported usage is spent', async () => {
    const { stream, remaining, lookups } = await setup(1_000);
    const { mock, result } = stream(alice, [lookupTurn(), answerTurn('It ships tomorrow.')]);

    expect(await result.text).toBe('It ships tomorrow.');
    expect(await result.steps).toHaveLength(2);
    expect(mock.doStreamCalls).toHaveLength(2);
    expect(lookups).toHaveLength(1);
    expect(await remaining()).toBe(800);
  });

  it('attack: the first call without room rejects text and steps with ModelBudgetExceededError; the provider is not called', async () => {
    const { stream, remaining } = await setup(50);
    const { mock, result } = stream(alice, [answerTurn('Unpaid answer.')]);

    const [text, steps] = await Promise.all([settled(result.text), settled(result.steps)]);

    expect(text).toEqual({ error: expect.any(ModelBudgetExceededError) });
    expect(steps).toEqual({ error: expect.any(ModelBudgetExceededError) });
    expect(mock.doStreamCalls).toHaveLength(0);
    expect(await remaining()).toBe(50);
  });

  it('attack: a later step without room rejects the generation, not answers with the earlier step’s text', async () => {
    const { stream, remaining, lookups } = await setup(180);
    const { mock, result } = stream(alice, [lookupTurn(), answerTurn('Unpaid answer.')]);

    const [text, steps, finishReason] = await Promise.all([
      settled(result.text),
      settled(result.steps),
      settled(result.finishReason),
    ]);

    expect(text).toEqual({ error: expect.any(ModelBudgetExceededError) });
    expect(steps).toEqual({ error: expect.any(ModelBudgetExceededError) });
    expect(finishReason).toEqual({ error: expect.any(ModelBudgetExceededError) });
    expect(lookups).toHaveLength(1);
    expect(mock.doStreamCalls).toHaveLength(1);
    expect(await remaining()).toBe(80);
  });

  it('attack: reading the stream throws ModelBudgetExceededError after the earlier step’s parts', async () => {
    const { stream } = await setup(180);
    const { result } = stream(alice, [lookupTurn(), answerTurn('Unpaid answer.')]);
    const read: string[] = [];

    const reading = settled(
      (async () => {
        for await (const part of result.fullStream) read.push(part.type);
      })(),
    );

    expect(await reading).toEqual({ error: expect.any(ModelBudgetExceededError) });
    expect(read).toContain('tool-result');
    expect(read).not.toContain('finish');
  });

  it('control: a chat route merging the stream maps the stop to its own error text (createUIMessageStream onError)', async () => {
    const { stream } = await setup(50);
    const { result } = stream(alice, [answerTurn('Unpaid answer.')]);
    const chat = createUIMessageStream({
      execute: ({ writer }) => writer.merge(result.toUIMessageStream()),
      onError: (error) =>
        error instanceof ModelBudgetExceededError ? 'You have used your assistant budget for today.' : 'Sorry.',
    });
    const chunks: unknown[] = [];

    for await (const chunk of chat) chunks.push(chunk);

    expect(chunks).toContainEqual({ type: 'error', errorText: 'You have used your assistant budget for today.' });
  });

  it.each([
    ['a model without a price under a cost budget', UnpricedModelError, alice, 'mock-large'],
    ['a call outside any action context', MissingActionContextError, null, 'mock-small'],
  ] as const)(
    'attack: %s rejects text with its own error; the provider is not called',
    async (_case, type, who, id) => {
      const { stream } = await setup(1_000, 'cost');
      const { mock, result } = stream(who, [answerTurn('Unpaid answer.')], id);

      expect(await settled(result.text)).toEqual({ error: expect.any(type) });
      expect(mock.doStreamCalls).toHaveLength(0);
    },
  );
});
