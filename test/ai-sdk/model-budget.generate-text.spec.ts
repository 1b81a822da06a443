import { describe, expect, it } from '@jest/globals';
import {
  type LanguageModelMiddleware,
  Output,
  generateText,
  simulateReadableStream,
  streamText,
  wrapLanguageModel,
} from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';
import {
  type ActionContext,
  ModelBudgetExceededError,
  UnpricedModelError,
  VerdictConfigurationError,
} from '@verdict/nestjs';
import { aiSdkModelBudget } from '@verdict/nestjs/ai-sdk';
import { bootPricedModelBudget } from '../budgets/priced-model-budget.fixture.js';
import { alice, bob } from '../pipeline/documents.fixture.js';

/** Every call is estimated at 60 input tokens and asks for 40 output tokens at most: 100 reserved. */
const MAX_OUTPUT = 40;

/** The tokens the provider reports (`null`: none), or `'empty'`: `usage: {}`, as a proxy may answer whatever the type says. */
type Usage = { input: number; output: number } | null | 'empty';
type Reported = { input: number; output: number } | null;
const counts = (usage: Reported) => ({
  inputTokens: { total: usage?.input, noCache: usage?.input, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: usage?.output, text: usage?.output, reasoning: undefined },
});
const reported = (usage: Usage) => (usage === 'empty' ? ({} as ReturnType<typeof counts>) : counts(usage));

/**
 * The application's own middleware outside the budget, filling in the counts a proxy left out: the SDK's
 * `generateText` and `streamText` read both. The budget's middleware sees the provider's `usage: {}` as it came.
 */
const fillMissingUsage: LanguageModelMiddleware = {
  wrapGenerate: async ({ doGenerate }) => {
    const result = await doGenerate();
    return { ...result, usage: { ...counts(null), ...result.usage } };
  },
  wrapStream: async ({ doStream }) => {
    const result = await doStream();
    const stream = result.stream.pipeThrough(
      new TransformStream({
        transform(part, controller) {
          controller.enqueue(part.type === 'finish' ? { ...part, usage: { ...counts(null), ...part.usage } } : part);
        },
      }),
    );
    return { ...result, stream };
  },
};
/** The budget around the provider's model; a provider answering `usage: {}` sits behind `fillMissingUsage`. */
const middlewareFor = (usage: Usage, budget: LanguageModelMiddleware) =>
  usage === 'empty' ? [fillMissingUsage, budget] : budget;

/** A report of many described fields: its JSON schema alone is several thousand bytes. */
const LARGE_REPORT = z.object(
  Object.fromEntries(
    Array.from({ length: 80 }, (_, index) => [
      `finding_${index}`,
      z.string().describe("One finding of the audit, in the customer's own words, with its evidence."),
    ]),
  ),
);
const SMALL_REPORT = z.object({ answer: z.string() });

async function setup(limit: number, measure: 'tokens' | 'cost' = 'tokens', { estimate = true } = {}) {
  const { contexts, gate, remaining } = await bootPricedModelBudget({ limit, measure });
  const middleware = aiSdkModelBudget(gate, contexts, estimate ? { estimateInputTokens: () => 60 } : {});
  /** One `generateText` as `who`, the provider reporting `usage`. */
  const generate = (who: ActionContext, usage: Usage, modelId = 'mock-small') => {
    const mock = new MockLanguageModelV4({
      modelId,
      doGenerate: {
        content: [{ type: 'text', text: 'Answered.' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: reported(usage),
        warnings: [],
      },
    });
    const model = wrapLanguageModel({ model: mock, middleware: middlewareFor(usage, middleware) });
    const result = contexts.run(who, () => generateText({ model, prompt: 'Hello', maxOutputTokens: MAX_OUTPUT }));
    return { mock, result };
  };
  /**
   * One `generateText` as `who` asking for an object of `schema` (none: text), with `providerOptions`, the provider
   * answering `answer`.
   */
  const generateObject = (
    who: ActionContext,
    schema: z.ZodObject | undefined,
    answer: string,
    providerOptions?: Record<string, Record<string, string>>,
  ) => {
    const mock = new MockLanguageModelV4({
      modelId: 'mock-small',
      doGenerate: {
        content: [{ type: 'text', text: answer }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: reported({ input: 20, output: 5 }),
        warnings: [],
      },
    });
    const model = wrapLanguageModel({ model: mock, middleware });
    const output = schema === undefined ? undefined : Output.object({ schema });
    const result = contexts.run(who, () =>
      generateText({ model, prompt: 'Hello', maxOutputTokens: MAX_OUTPUT, output, providerOptions }),
    );
    return { mock, result };
  };
  /** One `streamText` as `who`, read to its end. */
  const stream = async (who: ActionContext, usage: Usage) => {
    const mock = new MockLanguageModelV4({
      modelId: 'mock-small',
      doStream: {
        stream: simulateReadableStream({
          chunks: [
            { type: 'text-start', id: 't' },
            { type: 'text-delta', id: 't', delta: 'Streamed.' },
            { type: 'text-end', id: 't' },
            { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: reported(usage) },
          ],
        }),
      },
    });
    const model = wrapLanguageModel({ model: mock, middleware: middlewareFor(usage, middleware) });
    return contexts.run(who, async () => {
      const result = streamText({ model, prompt: 'Hello', maxOutputTokens: MAX_OUTPUT });
      return result.text;
    });
  };
  return { generate, generateObject, stream, remaining, gate };
}

describe('model budgets as AI SDK language-model middleware', () => {
  it('control: a call under budget completes, and only the reported usage is spent', async () => {
    const { generate, remaining } = await setup(1_000);
    expect((await generate(alice, { input: 20, output: 5 }).result).text).toBe('Answered.');
    expect(await remaining(alice)).toBe(975);
  });

  it('attack: a call without room never reaches the provider; another actor is unaffected', async () => {
    const { generate, remaining } = await setup(150);
    await generate(alice, { input: 60, output: 40 }).result;
    const refused = generate(alice, { input: 1, output: 1 });
    await expect(refused.result).rejects.toBeInstanceOf(ModelBudgetExceededError);
    expect(refused.mock.doGenerateCalls).toHaveLength(0);
    expect(await remaining(alice)).toBe(50);
    expect((await generate(bob, { input: 60, output: 40 }).result).text).toBe('Answered.');
  });

  it('fails closed on a maximum output that is not a token count (NaN, negative): typed error, nothing reserved; a count reserves (control)', async () => {
    const { gate, remaining } = await setup(1_000);
    for (const maxOutputTokens of [Number.NaN, -500, 2.5])
      await expect(gate.reserve(alice, { model: 'mock-small', inputTokens: 60, maxOutputTokens })).rejects.toThrow(
        VerdictConfigurationError,
      );
    expect(await remaining(alice)).toBe(1_000);
    await gate.reserve(alice, { model: 'mock-small', inputTokens: 60, maxOutputTokens: MAX_OUTPUT });
    expect(await remaining(alice)).toBe(900);
  });

  it('attack: without estimateInputTokens, a structured output whose schema alone exceeds the budget never reaches the provider, and nothing is spent', async () => {
    const { generateObject, remaining } = await setup(1_000, 'tokens', { estimate: false });
    const refused = generateObject(alice, LARGE_REPORT, '{}');
    await expect(refused.result).rejects.toBeInstanceOf(ModelBudgetExceededError);
    expect(refused.mock.doGenerateCalls).toHaveLength(0);
    expect(await remaining(alice)).toBe(1_000);
  });

  it('attack: without estimateInputTokens, provider options sent with the prompt (instructions) that alone exceed the budget never reach the provider', async () => {
    const { generateObject, remaining } = await setup(1_000, 'tokens', { estimate: false });
    const refused = generateObject(alice, undefined, 'Answered.', {
      openai: { instructions: 'Be brief. '.repeat(200) },
    });
    await expect(refused.result).rejects.toBeInstanceOf(ModelBudgetExceededError);
    expect(refused.mock.doGenerateCalls).toHaveLength(0);
    expect(await remaining(alice)).toBe(1_000);
  });

  it('control: without estimateInputTokens, the same prompt as text or with a small schema completes under the same limit', async () => {
    const { generateObject, remaining } = await setup(1_000, 'tokens', { estimate: false });
    expect((await generateObject(alice, undefined, 'Answered.').result).text).toBe('Answered.');
    const small = generateObject(bob, SMALL_REPORT, '{"answer":"Answered."}');
    expect((await small.result).output).toEqual({ answer: 'Answered.' });
    expect(small.mock.doGenerateCalls[0]?.responseFormat).toMatchObject({ type: 'json' });
    expect(await remaining(alice)).toBe(975);
    expect(await remaining(bob)).toBe(975);
  });

  it('keeps the estimate when the provider reports no usage', async () => {
    const { generate, remaining } = await setup(1_000);
    await generate(alice, null).result;
    expect(await remaining(alice)).toBe(900);
  });

  it('attack: a provider or proxy answering `usage: {}` still answers the caller, and the estimate is kept as spent; reported figures are committed (control)', async () => {
    const { generate, remaining } = await setup(1_000);
    expect((await generate(alice, 'empty').result).text).toBe('Answered.');
    expect(await remaining(alice)).toBe(900);
    expect((await generate(bob, { input: 20, output: 5 }).result).text).toBe('Answered.');
    expect(await remaining(bob)).toBe(975);
  });

  it('attack: a provider or proxy that reports zero tokens spends the estimate, not nothing (the first test is the control)', async () => {
    const { generate, remaining } = await setup(1_000);
    await generate(alice, { input: 0, output: 0 }).result;
    expect(await remaining(alice)).toBe(900);
  });

  it('refuses a model missing from the price table under a cost budget', async () => {
    const { generate, remaining } = await setup(1_000, 'cost');
    const refused = generate(alice, { input: 1, output: 1 }, 'mock-large');
    await expect(refused.result).rejects.toBeInstanceOf(UnpricedModelError);
    expect(refused.mock.doGenerateCalls).toHaveLength(0);
    expect(await remaining(alice)).toBe(1_000);
  });

  it('settles a stream at its end: usage committed, the rest released; without usage the estimate is kept', async () => {
    const { stream, remaining } = await setup(1_000);
    expect(await stream(alice, { input: 10, output: 3 })).toBe('Streamed.');
    expect(await remaining(alice)).toBe(987);
    await stream(bob, null);
    expect(await remaining(bob)).toBe(900);
  });

  it('attack: a stream whose finish part carries `usage: {}` reaches its end, and the estimate is kept as spent (reported figures: the control above)', async () => {
    const { stream, remaining } = await setup(1_000);
    expect(await stream(alice, 'empty')).toBe('Streamed.');
    expect(await remaining(alice)).toBe(900);
  });
});
