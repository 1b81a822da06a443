import { afterEach, describe, expect, it } from '@jest/globals';
import { type LanguageModel, generateText, streamText, wrapLanguageModel } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';
import type { TestingModule } from '@nestjs/testing';
import { ActionContextStore, UnreleasedContextError } from '@verdict/nestjs';
import { AiSdkModelInputGuards, VerdictAiSdkModule } from '@verdict/nestjs/ai-sdk';
import { alice, paymentsFixture } from '../provenance/payments.fixture.js';
import { TRUSTED_ONLY, catalogPolicy, local, productRoute } from '../provenance/payments-script.fixture.js';

// docs/runtimes/ai-sdk.md, ADR 0132: a call's own provider options are sent beside the prompt — the OpenAI Responses
// model sends `instructions` as the request's instructions, and both models send `metadata` — so any provider's
// `instructions` passes as a system prompt does, and every other option holds no data.

const booted: TestingModule[] = [];
afterEach(async () => {
  await Promise.all(booted.splice(0).map((moduleRef) => moduleRef.close()));
});

const customer = { name: 'Ada Lovelace', email: 'ada@example.org', card: '4111111111111111' };
const record = JSON.stringify(customer);
const SYSTEM = 'You help customers.';

type ProviderOptions = Parameters<typeof generateText>[0]['providerOptions'];

/** What the provider answers: `ok`, as a Responses or a Chat Completions body. */
function answer(url: string): object {
  if (url.endsWith('/responses'))
    return {
      id: 'resp_1',
      object: 'response',
      created_at: 1,
      model: 'gpt-5-mini',
      status: 'completed',
      output: [
        {
          type: 'message',
          id: 'msg_1',
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: 'ok', annotations: [] }],
        },
      ],
      usage: { input_tokens: 5, output_tokens: 1 },
      incomplete_details: null,
    };
  return {
    id: 'chatcmpl_1',
    object: 'chat.completion',
    created: 1,
    model: 'gpt-4o-mini',
    choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
  };
}

/**
 * The real `@ai-sdk/openai` provider over a scripted fetch that keeps every request body it is sent; under another
 * `name` (an Azure deployment), its Responses model reads that provider's options.
 */
function scriptedOpenAI(name?: string) {
  const bodies: Record<string, unknown>[] = [];
  const fetch = (url: unknown, init?: { body?: unknown }) => {
    bodies.push(JSON.parse(String(init?.body)) as Record<string, unknown>);
    const body = JSON.stringify(answer(String(url)));
    return Promise.resolve(new Response(body, { status: 200, headers: { 'content-type': 'application/json' } }));
  };
  const provider = createOpenAI({ name, apiKey: 'test', fetch: fetch as typeof globalThis.fetch });
  return { responses: provider.responses('gpt-5-mini'), chat: provider.chat('gpt-4o-mini'), bodies };
}

async function setup(name?: string) {
  const fixture = await paymentsFixture({
    payments: TRUSTED_ONLY,
    releasePolicies: [catalogPolicy],
    imports: [VerdictAiSdkModule],
  });
  booted.push(fixture.moduleRef);
  const guard = fixture.moduleRef.get(AiSdkModelInputGuards, { strict: false }).forDestination(local, {
    toolResults: { view_product: productRoute },
    systemPrompts: [SYSTEM],
  });
  const contexts = fixture.moduleRef.get(ActionContextStore);
  const openai = scriptedOpenAI(name);
  const guarded = (model: LanguageModel & object) =>
    wrapLanguageModel({
      model: model as Parameters<typeof wrapLanguageModel>[0]['model'],
      middleware: guard.middleware(),
    });
  /** Alice's generation through the guard, with the registered system prompt and `providerOptions`. */
  const generate = (model: LanguageModel & object, providerOptions: ProviderOptions) =>
    contexts.run(alice, () => generateText({ model: guarded(model), system: SYSTEM, prompt: 'Hi', providerOptions }));
  return { guard, contexts, openai, guarded, generate };
}

describe('AI SDK model-input guard: a call’s provider options', () => {
  it.each([
    ['a customer record as the Responses instructions', { openai: { instructions: record } }],
    [
      'a per-run prompt naming the customer, neither registered nor sealed',
      { openai: { instructions: `Help ${customer.name}.` } },
    ],
    [
      'a record in the metadata, beside a registered prompt',
      { openai: { instructions: SYSTEM, metadata: { email: customer.email } } },
    ],
    ['the record as a plain option’s text', { openai: { safetyIdentifier: record } }],
  ])('attack: %s never reaches the Responses model', async (_case, providerOptions) => {
    const { openai, generate } = await setup();

    await expect(generate(openai.responses, providerOptions)).rejects.toThrow(UnreleasedContextError);

    expect(openai.bodies).toHaveLength(0);
  });

  it('attack: the record as the instructions of an Azure deployment (its own provider options) never reaches it', async () => {
    const { openai, generate } = await setup('azure');

    await expect(generate(openai.responses, { azure: { instructions: record } })).rejects.toThrow(
      UnreleasedContextError,
    );

    expect(openai.bodies).toHaveLength(0);
  });

  it.each([
    ['a record in the metadata', { openai: { metadata: { email: customer.email } } }],
    ['the customer’s name in the metadata', { openai: { metadata: { name: customer.name } } }],
    ['a predicted output holding the record', { openai: { prediction: { type: 'content', content: record } } }],
  ])('attack: %s never reaches the Chat Completions model', async (_case, providerOptions) => {
    const { openai, generate } = await setup();

    await expect(generate(openai.chat, providerOptions)).rejects.toThrow(UnreleasedContextError);

    expect(openai.bodies).toHaveLength(0);
  });

  it('attack: a streamed generation with the record as its instructions never reaches the provider', async () => {
    const { openai, guarded, contexts } = await setup();
    const errors: unknown[] = [];

    await contexts.run(alice, async () => {
      const result = streamText({
        model: guarded(openai.responses),
        system: SYSTEM,
        prompt: 'Hi',
        providerOptions: { openai: { instructions: record } },
        onError: ({ error }) => void errors.push(error),
      });
      await result.consumeStream();
    });

    expect(errors[0]).toBeInstanceOf(UnreleasedContextError);
    expect(openai.bodies).toHaveLength(0);
  });

  it('control: plain request controls and the registered prompt as instructions reach the Responses model', async () => {
    const { openai, generate } = await setup();
    const options = {
      instructions: SYSTEM,
      store: false,
      reasoningEffort: 'low',
      previousResponseId: 'resp_0',
      promptCacheKey: 'support',
      safetyIdentifier: 'customer-72',
    };

    const result = await generate(openai.responses, { openai: options });

    expect(result.text).toBe('ok');
    expect(openai.bodies[0]).toMatchObject({
      instructions: SYSTEM,
      store: false,
      reasoning: { effort: 'low' },
      previous_response_id: 'resp_0',
      prompt_cache_key: 'support',
      safety_identifier: 'customer-72',
    });
  });

  it('control: a per-run prompt the guard sealed reaches the Responses model as its instructions', async () => {
    const { openai, generate, guard } = await setup();
    const prompt = `Help ${customer.name} with the order she asks about.`;

    const result = await generate(openai.responses, {
      ...guard.systemPrompt(prompt).providerOptions,
      openai: { instructions: prompt, store: false },
    });

    expect(result.text).toBe('ok');
    expect(openai.bodies[0]).toMatchObject({ instructions: prompt, store: false });
  });

  it.each([
    ['Anthropic extended thinking', { anthropic: { thinking: { type: 'enabled', budgetTokens: 1024 } } }],
    ['Google thinkingConfig', { google: { thinkingConfig: { thinkingBudget: 0 } } }],
    ['Bedrock reasoningConfig', { bedrock: { reasoningConfig: { type: 'enabled', budgetTokens: 1024 } } }],
  ])('control: nested control options (%s) pass the guard and the call goes out', async (_case, providerOptions) => {
    const { openai, generate } = await setup();

    const result = await generate(openai.responses, providerOptions);

    expect(result.text).toBe('ok');
    expect(openai.bodies).toHaveLength(1);
  });

  it('control: a list of control tokens (encrypted reasoning in the answer) reaches the Responses model', async () => {
    const { openai, generate } = await setup();

    const result = await generate(openai.responses, { openai: { include: ['reasoning.encrypted_content'] } });

    expect(result.text).toBe('ok');
    expect(openai.bodies[0]).toMatchObject({ include: ['reasoning.encrypted_content'] });
  });

  it('control: plain request controls reach the Chat Completions model', async () => {
    const { openai, generate } = await setup();

    const result = await generate(openai.chat, {
      openai: { user: 'customer-72', store: false, parallelToolCalls: false },
    });

    expect(result.text).toBe('ok');
    expect(openai.bodies[0]).toMatchObject({ user: 'customer-72', store: false });
  });
});
