import { afterEach, describe, expect, it } from '@jest/globals';
import { HumanMessage } from '@langchain/core/messages';
import { ChatOpenAI } from '@langchain/openai';
import { Module } from '@nestjs/common';
import type { TestingModule } from '@nestjs/testing';
import { createAgent } from 'langchain';
import {
  ActionContextStore,
  InMemoryBudgetStore,
  ModelBudgetExceededError,
  ModelBudgetGate,
  type ModelCallBudgets,
  VerdictConfigurationError,
} from '@verdict/nestjs';
import { ModelBudgets, VerdictLangChainModule } from '@verdict/nestjs/langchain';
import { alice, documentsFixture } from '../pipeline/documents.fixture.js';

const booted: TestingModule[] = [];
afterEach(async () => {
  await Promise.all(booted.splice(0).map((moduleRef) => moduleRef.close()));
});

/** Every call's input is estimated at 50 tokens; the provider reports 20 input tokens and `output` output tokens. */
const INPUT_ESTIMATE = 50;
const REPORTED_INPUT = 20;
const LIMIT = 5_000;
/** The configured fallback: what a model that declares no maximum output reserves. */
const FALLBACK = 100;

/**
 * How `ChatOpenAI` sends its `maxTokens`: `max_tokens` on chat completions, `max_completion_tokens` to a reasoning
 * model (o*, gpt-5*), `max_output_tokens` on the Responses API (asked for, or preferred by a codex model). Only the
 * first is LangChain's `ls_max_tokens`.
 */
const APIS = [
  { api: 'chat completions', model: 'gpt-4o-mini', sent: 'max_tokens', fields: {} },
  { api: 'chat completions, a reasoning model', model: 'gpt-5-mini', sent: 'max_completion_tokens', fields: {} },
  { api: 'the Responses API', model: 'gpt-4o-mini', sent: 'max_output_tokens', fields: { useResponsesApi: true } },
  { api: 'the Responses API, a codex model', model: 'gpt-5-codex', sent: 'max_output_tokens', fields: {} },
] as const;

type Api = (typeof APIS)[number];

/**
 * A scripted OpenAI endpoint as `ChatOpenAI`'s `fetch` (no network): each request is recorded, `during(index)` runs
 * while it is answered, and the answer reports `output` output tokens, as a chat completion or a response.
 */
function scriptedOpenAI(output: number, during: (index: number) => Promise<unknown> = async () => undefined) {
  const requests: Record<string, unknown>[] = [];
  const fetch = async (url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const body = JSON.parse(String(init?.body)) as Record<string, unknown>;
    await during(requests.push(body) - 1);
    const answer = String(url).endsWith('/responses')
      ? {
          id: 'resp_1',
          object: 'response',
          created_at: 0,
          model: body.model,
          status: 'completed',
          output: [
            {
              type: 'message',
              id: 'msg_1',
              role: 'assistant',
              status: 'completed',
              content: [{ type: 'output_text', text: 'Your plan has three steps.', annotations: [] }],
            },
          ],
          usage: { input_tokens: REPORTED_INPUT, output_tokens: output, total_tokens: REPORTED_INPUT + output },
        }
      : {
          id: 'chatcmpl-1',
          object: 'chat.completion',
          created: 0,
          model: body.model,
          choices: [
            {
              index: 0,
              finish_reason: 'stop',
              message: { role: 'assistant', content: 'Your plan has three steps.' },
            },
          ],
          usage: { prompt_tokens: REPORTED_INPUT, completion_tokens: output, total_tokens: REPORTED_INPUT + output },
        };
    return new Response(JSON.stringify(answer), { status: 200, headers: { 'content-type': 'application/json' } });
  };
  return { fetch, requests };
}

/** A real `ChatOpenAI` of `api` declaring `maxTokens`, answered by `openai`. */
const chatOpenAI = (api: Api, maxTokens: number, openai: ReturnType<typeof scriptedOpenAI>) =>
  new ChatOpenAI({
    model: api.model,
    maxTokens,
    ...api.fields,
    apiKey: 'sk-scripted',
    maxRetries: 0,
    configuration: { fetch: openai.fetch },
  });

async function setup(modelBudgets: ModelCallBudgets) {
  const fixture = documentsFixture();
  @Module({ imports: [VerdictLangChainModule] })
  class AssistantModule {}
  // One instant for the whole test: the budget's hourly window cannot roll over between a run and its standing.
  const now = new Date();
  const { moduleRef } = await fixture.boot({
    imports: [AssistantModule],
    budgets: new InMemoryBudgetStore(),
    actorKey: (actor: { id: string }) => actor.id,
    modelBudgets,
    clock: () => now,
  });
  booted.push(moduleRef);
  const contexts = moduleRef.get(ActionContextStore);
  const gate = moduleRef.get(ModelBudgetGate);
  const budget = moduleRef.get(ModelBudgets).forAgent({ estimateInputTokens: () => INPUT_ESTIMATE });
  /** One agent run of `model` for alice; LangChain's MiddlewareError unwrapped to Verdict's typed error. */
  const ask = (model: ChatOpenAI) =>
    contexts
      .run(alice, () =>
        createAgent({ model, tools: [], middleware: [budget.middleware()] }).invoke({
          messages: [new HumanMessage('What is in my plan?')],
        }),
      )
      .catch((error: unknown) => {
        throw (error as { cause?: unknown }).cause ?? error;
      });
  const remaining = async () => (await gate.standing(alice))[0]!.remaining;
  return { ask, remaining };
}

const tokensPerActor = (maxOutputTokens?: number): ModelCallBudgets => ({
  budgets: [{ name: 'tokens', measure: 'tokens', limit: LIMIT, per: 'actor', window: 3_600 }],
  ...(maxOutputTokens === undefined ? {} : { maxOutputTokens }),
});

describe("model budgets reserve a real ChatOpenAI's maxTokens, whichever parameter carries it", () => {
  for (const api of APIS) {
    it(`attack (${api.api}): maxTokens 8,000 cannot fit a 5,000-token budget, so the model is never called`, async () => {
      const { ask, remaining } = await setup(tokensPerActor(FALLBACK));
      // The provider would answer with 7,000 output tokens, which the model's maxTokens allows it.
      const openai = scriptedOpenAI(7_000);
      await expect(ask(chatOpenAI(api, 8_000, openai))).rejects.toBeInstanceOf(ModelBudgetExceededError);
      expect(openai.requests).toEqual([]);
      expect(await remaining()).toBe(LIMIT);
    });

    it(`control (${api.api}): maxTokens 1,000 fits; its estimate is held during the call, then only the usage spent`, async () => {
      const { ask, remaining } = await setup(tokensPerActor(FALLBACK));
      const held: number[] = [];
      const openai = scriptedOpenAI(300, async () => held.push(await remaining()));
      await ask(chatOpenAI(api, 1_000, openai));
      expect(openai.requests).toHaveLength(1);
      expect(openai.requests[0]).toMatchObject({ [api.sent]: 1_000 });
      expect(held).toEqual([LIMIT - INPUT_ESTIMATE - 1_000]);
      expect(await remaining()).toBe(LIMIT - REPORTED_INPUT - 300);
    });
  }

  it('attack (a reasoning model): concurrent runs whose maxTokens fit one at a time cannot together pass the limit', async () => {
    const { ask, remaining } = await setup(tokensPerActor(FALLBACK));
    // The first run's call is held open until the second run has had its answer.
    let secondAnswered!: () => void;
    const second = new Promise<void>((resolve) => (secondAnswered = resolve));
    let firstCalled!: () => void;
    const called = new Promise<void>((resolve) => (firstCalled = resolve));
    const openai = scriptedOpenAI(3_000, async (index) => {
      if (index > 0) return;
      firstCalled();
      await second;
    });
    const model = chatOpenAI(APIS[1], 3_000, openai);
    const first = ask(model);
    await called;
    const refused = ask(model).catch((error: unknown) => error);
    await expect(refused).resolves.toBeInstanceOf(ModelBudgetExceededError);
    secondAnswered();
    await first;
    expect(openai.requests).toHaveLength(1);
    expect(await remaining()).toBe(LIMIT - REPORTED_INPUT - 3_000);
  });

  it('a reasoning model with maxTokens and no fallback configured is called: its maximum is declared', async () => {
    const { ask, remaining } = await setup(tokensPerActor());
    const openai = scriptedOpenAI(300);
    await ask(chatOpenAI(APIS[1], 1_000, openai));
    expect(openai.requests).toHaveLength(1);
    expect(await remaining()).toBe(LIMIT - REPORTED_INPUT - 300);
  });

  it('maxTokens -1 declares no maximum: the fallback is reserved, and without one the call is a configuration error', async () => {
    const withFallback = await setup(tokensPerActor(FALLBACK));
    const held: number[] = [];
    const openai = scriptedOpenAI(30, async () => held.push(await withFallback.remaining()));
    await withFallback.ask(chatOpenAI(APIS[2], -1, openai));
    expect(held).toEqual([LIMIT - INPUT_ESTIMATE - FALLBACK]);

    const without = await setup(tokensPerActor());
    const never = scriptedOpenAI(30);
    const error = await without.ask(chatOpenAI(APIS[2], -1, never)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(VerdictConfigurationError);
    expect((error as Error).message).toMatch(/declares no maximum output/);
    expect(never.requests).toEqual([]);
  });
});
