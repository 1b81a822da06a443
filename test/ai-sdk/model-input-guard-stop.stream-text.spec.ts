import { describe, expect, it } from '@jest/globals';
import {
  type LanguageModel,
  type ModelMessage,
  NoOutputGeneratedError,
  generateText,
  stepCountIs,
  streamText,
  wrapLanguageModel,
} from 'ai';
import type { MockLanguageModelV4 } from 'ai/test';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ActionContextStore, UnreleasedContextError } from '@verdict/nestjs';
import {
  AiSdkModelInputGuards,
  type ToolResultRoute,
  VerdictAiSdkModule,
  VerdictAiSdkTools,
} from '@verdict/nestjs/ai-sdk';
import { alice, paymentsFixture } from '../provenance/payments.fixture.js';
import { TRUSTED_ONLY, VIEW, catalogPolicy, local, productRoute } from '../provenance/payments-script.fixture.js';
import { type ScriptedTurn, scriptedLanguageModel, scriptedStreamingModel } from './scripted-language-model.js';

/**
 * docs/runtimes/ai-sdk.md: the model-input guard refuses a prompt in `transformParams`, before the provider is
 * called. Under `generateText` its `UnreleasedContextError` rejects the generation as it is; under `streamText` it
 * takes the AI SDK's route for an error in a stream, as a model-budget stop does (ADR 0199): `onError` and an
 * `error` part of `fullStream`, `text` rejecting with `NoOutputGeneratedError` when no step ran and resolving with
 * the earlier steps' output after a mid-run refusal, and a piped response that resolves, having sent the error part.
 */
const STRUCTURED = JSON.stringify({ name: 'Kettle', price: 25 });
const REFUSED = 'This request cannot be sent to the assistant.';
const ask = (text: string): ModelMessage[] => [{ role: 'user', content: text }];

async function setup(toolResults: Record<string, ToolResultRoute>) {
  const fixture = await paymentsFixture({
    payments: TRUSTED_ONLY,
    releasePolicies: [catalogPolicy],
    imports: [VerdictAiSdkModule],
  });
  const aiTools = fixture.moduleRef.get(VerdictAiSdkTools, { strict: false });
  const tools = { view_product: aiTools.bound('products.view', { name: 'view_product' }) };
  const guard = fixture.moduleRef.get(AiSdkModelInputGuards, { strict: false }).forDestination(local, { toolResults });
  const contexts = fixture.moduleRef.get(ActionContextStore);
  const guarded = (inner: MockLanguageModelV4): LanguageModel =>
    wrapLanguageModel({ model: inner, middleware: guard.middleware() });
  const generate = (turns: ScriptedTurn[], prompt: string) => {
    const inner = scriptedLanguageModel(turns);
    const result = contexts.run(alice, () =>
      generateText({ model: guarded(inner), tools, messages: ask(prompt), stopWhen: stepCountIs(5) }),
    );
    return { inner, result };
  };
  /** A streamed chat generation: the errors `onError` was handed are in `errors`. */
  const stream = (turns: ScriptedTurn[], prompt: string) => {
    const inner = scriptedStreamingModel(turns);
    const errors: unknown[] = [];
    const result = contexts.run(alice, () =>
      streamText({
        model: guarded(inner),
        tools,
        messages: ask(prompt),
        stopWhen: stepCountIs(5),
        onError: ({ error }) => {
          errors.push(error);
        },
      }),
    );
    return { inner, errors, result };
  };
  return { generate, stream };
}

/** What a promise came to: its value, or the error it rejected with. */
const settled = <T>(promise: PromiseLike<T>) =>
  Promise.resolve(promise).then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );

describe('a model-input guard refusal under generateText and streamText', () => {
  it('attack: generateText rejects with UnreleasedContextError as it is; the provider is not called', async () => {
    const { generate } = await setup({});
    const { inner, result } = generate([{ text: 'ok' }], STRUCTURED);

    await expect(result).rejects.toBeInstanceOf(UnreleasedContextError);
    expect(inner.doGenerateCalls).toHaveLength(0);
  });

  it('attack: streamText at the first step: onError and fullStream’s error part hold UnreleasedContextError; text rejects with NoOutputGeneratedError; the provider is not called', async () => {
    const { stream } = await setup({});
    const { inner, errors, result } = stream([{ text: 'ok' }], STRUCTURED);
    const parts: unknown[] = [];

    for await (const part of result.fullStream) if (part.type === 'error') parts.push(part.error);

    expect(parts).toEqual([expect.any(UnreleasedContextError)]);
    expect(errors).toEqual([expect.any(UnreleasedContextError)]);
    expect(await settled(result.text)).toEqual({ error: expect.any(NoOutputGeneratedError) });
    expect(inner.doStreamCalls).toHaveLength(0);
  });

  it('attack: streamText after a tool step whose result has no route: onError holds UnreleasedContextError; the steps end with the tool step; the provider is not called again', async () => {
    const { stream } = await setup({});
    const { inner, errors, result } = stream([{ toolCalls: [VIEW] }, { text: 'It costs 25.' }], 'Tell me about p-1.');

    const steps = await result.steps;

    expect(errors).toEqual([expect.any(UnreleasedContextError)]);
    expect(steps).toHaveLength(1);
    expect(steps[0]!.toolResults).toHaveLength(1);
    expect(await result.text).toBe('');
    expect(inner.doStreamCalls).toHaveLength(1);
  });

  it('attack: streamText piped to a Node ServerResponse: the pipe resolves and the response sends the error part', async () => {
    const { stream } = await setup({});
    const { inner, result } = stream([{ text: 'ok' }], STRUCTURED);
    let piped: Promise<{ value: void } | { error: unknown }> | undefined;
    const server = createServer((_request, response) => {
      // As a Nest `@Res()` handler does: not awaited.
      piped = settled(
        result.pipeUIMessageStreamToResponse(response, {
          onError: (error) => (error instanceof UnreleasedContextError ? REFUSED : 'Sorry.'),
        }),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/chat`);
      const body = await response.text();

      expect(await piped!).toEqual({ value: undefined });
      expect(body).toContain(JSON.stringify({ type: 'error', errorText: REFUSED }));
      expect(inner.doStreamCalls).toHaveLength(0);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('control: a routed tool result and a prose question stream to the answer; onError is not called', async () => {
    const { stream } = await setup({ view_product: productRoute });
    const { inner, errors, result } = stream([{ toolCalls: [VIEW] }, { text: 'It costs 25.' }], 'Tell me about p-1.');

    expect(await result.text).toBe('It costs 25.');
    expect(errors).toEqual([]);
    expect(inner.doStreamCalls).toHaveLength(2);
  });
});
