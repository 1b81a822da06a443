import { describe, expect, it } from '@jest/globals';
import {
  NoOutputGeneratedError,
  jsonSchema,
  simulateReadableStream,
  stepCountIs,
  streamText,
  tool,
  wrapLanguageModel,
} from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type ActionContext,
  MissingActionContextError,
  ModelBudgetExceededError,
  UnpricedModelError,
} from '@verdict/nestjs';
import { aiSdkModelBudget } from '@verdict/nestjs/ai-sdk';
import { bootPricedModelBudget } from '../budgets/priced-model-budget.fixture.js';
import { alice } from '../pipeline/documents.fixture.js';

/**
 * docs/budgets.md, docs/runtimes/ai-sdk.md, ADR 0199: under `streamText`, a model call the budget refuses follows the
 * AI SDK's convention for an error in a stream. The provider is never called; the budget's error reaches `onError`
 * and is an `error` part of `fullStream` as it is; `text` rejects with the SDK's `NoOutputGeneratedError` when no
 * step ran and resolves with the earlier steps' output after a mid-run stop. A response piped from the generation
 * (`pipeUIMessageStreamToResponse`, `pipeTextStreamToResponse`, which a Nest `@Res()` handler calls without `await`)
 * resolves, having sent the error part: a pipe that rejected would be an unhandled rejection that ends the process.
 */
/** Every call is estimated at 60 input tokens and asks for 40 output tokens at most: 100 reserved. */
const MAX_OUTPUT = 40;
/** What the provider reports for each call: 100 tokens. */
const usage = {
  inputTokens: { total: 90, noCache: 90, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 10, text: 10, reasoning: undefined },
};
const OUT_OF_BUDGET = 'You have used your assistant budget for today.';
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
  const { contexts, gate, remaining } = await bootPricedModelBudget({ limit, measure });
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
  /**
   * One `streamText` of `turns` (a tool step, then an answer) as `who` (`null`: outside any action context), as a
   * chat route runs it: the errors `onError` was handed are in `errors`.
   */
  const stream = (who: ActionContext | null, turns: StreamResult[], modelId = 'mock-small') => {
    const mock = new MockLanguageModelV4({ modelId, doStream: turns });
    const model = wrapLanguageModel({ model: mock, middleware });
    const errors: unknown[] = [];
    const generate = () =>
      streamText({
        model,
        prompt: 'Where is order 7?',
        tools,
        maxOutputTokens: MAX_OUTPUT,
        stopWhen: stepCountIs(4),
        onError: ({ error }) => {
          errors.push(error);
        },
      });
    return { mock, errors, result: who === null ? generate() : contexts.run(who, generate) };
  };
  return { stream, remaining: () => remaining(alice), lookups };
}

/** What a promise came to: its value, or the error it rejected with. */
const settled = <T>(promise: PromiseLike<T>) =>
  Promise.resolve(promise).then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );

/** Reads `fullStream` to its end: the types of its parts, and the errors of its `error` parts. */
async function readFullStream(fullStream: AsyncIterable<{ type: string; error?: unknown }>) {
  const types: string[] = [];
  const errors: unknown[] = [];
  for await (const part of fullStream) {
    types.push(part.type);
    if (part.type === 'error') errors.push(part.error);
  }
  return { types, errors };
}

/**
 * A real Node HTTP server whose handler pipes the generation to its `ServerResponse` without awaiting it, as the AI
 * SDK's Nest.js recipe does in an `@Res()` handler; one request is made. Answers the response's status and body, and
 * what the pipe's promise came to.
 */
async function served(pipe: (response: ServerResponse) => Promise<void>) {
  let piped: Promise<{ value: void } | { error: unknown }> | undefined;
  const server = createServer((_request, response) => {
    piped = settled(pipe(response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/chat`);
    const body = await response.text();
    return { status: response.status, body, piped: await piped! };
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** The JSON chunks of a UI message stream's SSE body. */
const uiChunks = (body: string): unknown[] =>
  body
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
    .map((line) => JSON.parse(line.slice('data: '.length)) as unknown);

/** A chat route's `onError` for the UI stream: the budget's stop gets its own text. */
const chatErrorText = (error: unknown) => (error instanceof ModelBudgetExceededError ? OUT_OF_BUDGET : 'Sorry.');

describe('a model budget stop under the AI SDK streamText', () => {
  it('control: within budget, the generation runs its tool step and answers; onError is not called; the reported usage is spent', async () => {
    const { stream, remaining, lookups } = await setup(1_000);
    const { mock, errors, result } = stream(alice, [lookupTurn(), answerTurn('It ships tomorrow.')]);

    expect(await result.text).toBe('It ships tomorrow.');
    expect(await result.steps).toHaveLength(2);
    expect(errors).toEqual([]);
    expect(mock.doStreamCalls).toHaveLength(2);
    expect(lookups).toHaveLength(1);
    expect(await remaining()).toBe(800);
  });

  it('attack: the first call without room reaches onError and fullStream as ModelBudgetExceededError; text rejects with NoOutputGeneratedError; the provider is not called', async () => {
    const { stream, remaining } = await setup(50);
    const { mock, errors, result } = stream(alice, [answerTurn('Unpaid answer.')]);

    const read = await readFullStream(result.fullStream);

    expect(read.errors).toEqual([expect.any(ModelBudgetExceededError)]);
    expect(errors).toEqual([expect.any(ModelBudgetExceededError)]);
    expect(errors[0]).toBe(read.errors[0]);
    expect(await settled(result.text)).toEqual({ error: expect.any(NoOutputGeneratedError) });
    expect(mock.doStreamCalls).toHaveLength(0);
    expect(await remaining()).toBe(50);
  });

  it('attack: a later call without room reaches onError and fullStream after the tool step; text resolves with the earlier step’s output; the provider is not called again', async () => {
    const { stream, remaining, lookups } = await setup(180);
    const { mock, errors, result } = stream(alice, [lookupTurn(), answerTurn('Unpaid answer.')]);

    const read = await readFullStream(result.fullStream);

    expect(read.errors).toEqual([expect.any(ModelBudgetExceededError)]);
    expect(read.types.indexOf('error')).toBeGreaterThan(read.types.indexOf('tool-result'));
    expect(errors).toEqual([expect.any(ModelBudgetExceededError)]);
    expect(await result.text).toBe('Let me look that up.');
    expect(await result.steps).toHaveLength(1);
    expect(lookups).toHaveLength(1);
    expect(mock.doStreamCalls).toHaveLength(1);
    expect(await remaining()).toBe(80);
  });

  it.each([
    ['the first call', 50, [answerTurn('Unpaid answer.')]],
    ['a later call', 180, [lookupTurn(), answerTurn('Unpaid answer.')]],
  ] as const)(
    'attack: %s without room, piped to a Node ServerResponse as UI messages: the pipe resolves, the response sends the chat route’s error part',
    async (_case, limit, turns) => {
      const { stream } = await setup(limit);
      const { mock, errors, result } = stream(alice, [...turns]);

      const { status, body, piped } = await served((response) =>
        result.pipeUIMessageStreamToResponse(response, { onError: chatErrorText }),
      );

      expect(piped).toEqual({ value: undefined });
      expect(status).toBe(200);
      expect(uiChunks(body)).toContainEqual({ type: 'error', errorText: OUT_OF_BUDGET });
      expect(body).not.toContain('Unpaid answer.');
      expect(errors).toEqual([expect.any(ModelBudgetExceededError)]);
      expect(mock.doStreamCalls).toHaveLength(turns.length - 1);
    },
  );

  it('attack: a later call without room, piped to a Node ServerResponse as text: the pipe resolves with the earlier step’s text sent', async () => {
    const { stream } = await setup(180);
    const { errors, result } = stream(alice, [lookupTurn(), answerTurn('Unpaid answer.')]);

    const { status, body, piped } = await served((response) => result.pipeTextStreamToResponse(response));

    expect(piped).toEqual({ value: undefined });
    expect(status).toBe(200);
    expect(body).toBe('Let me look that up.');
    expect(errors).toEqual([expect.any(ModelBudgetExceededError)]);
  });

  it('control: within budget, the piped UI message stream answers with no error part', async () => {
    const { stream } = await setup(1_000);
    const { errors, result } = stream(alice, [lookupTurn(), answerTurn('It ships tomorrow.')]);

    const { body, piped } = await served((response) =>
      result.pipeUIMessageStreamToResponse(response, { onError: chatErrorText }),
    );

    expect(piped).toEqual({ value: undefined });
    expect(uiChunks(body)).toContainEqual(expect.objectContaining({ type: 'text-delta', delta: 'It ships tomorrow.' }));
    expect(uiChunks(body)).not.toContainEqual(expect.objectContaining({ type: 'error' }));
    expect(errors).toEqual([]);
  });

  it.each([
    ['a model without a price under a cost budget', UnpricedModelError, alice, 'mock-large'],
    ['a call outside any action context', MissingActionContextError, null, 'mock-small'],
  ] as const)(
    'attack: %s reaches onError with its own error; the provider is not called',
    async (_case, type, who, id) => {
      const { stream } = await setup(1_000, 'cost');
      const { mock, errors, result } = stream(who, [answerTurn('Unpaid answer.')], id);

      expect(await settled(result.text)).toEqual({ error: expect.any(NoOutputGeneratedError) });
      expect(errors).toEqual([expect.any(type)]);
      expect(mock.doStreamCalls).toHaveLength(0);
    },
  );
});
