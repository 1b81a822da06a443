import { afterEach, describe, expect, it } from '@jest/globals';
import { HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { Module } from '@nestjs/common';
import { EventEmitter2, EventEmitterModule } from '@nestjs/event-emitter';
import type { TestingModule } from '@nestjs/testing';
import { createAgent, providerStrategy, toolStrategy } from 'langchain';
import { z } from 'zod';
import {
  ActionContextStore,
  type ActionContext,
  InMemoryBudgetStore,
  MissingActionContextError,
  MissingModelBudgetScopeError,
  ModelBudgetExceeded,
  ModelBudgetExceededError,
  ModelBudgetGate,
  type ModelCallBudgets,
  UnpricedModelError,
  VerdictConfigurationError,
  fingerprintString,
} from '@verdict/nestjs';
import { ModelBudgets, VerdictLangChainModule, estimateInputTokens } from '@verdict/nestjs/langchain';
import { ScriptedChatModel, type ScriptStep } from '../../libs/testing/src/scripted-chat-model.js';
import { alice, bob, documentsFixture } from '../pipeline/documents.fixture.js';

const booted: TestingModule[] = [];
afterEach(async () => {
  await Promise.all(booted.splice(0).map((moduleRef) => moduleRef.close()));
});

/** Every call is estimated at 60 input tokens; the model declares 40 output tokens at most: 100 reserved. */
const INPUT_ESTIMATE = 60;
const MAX_OUTPUT = 40;
const PRICES = { 'scripted-small': { input: 1_000_000, output: 2_000_000 } }; // 1 and 2 units a token

/** The module's `actorKey` written as a method of its options, reading them through `this`. */
const methodActorKey = {
  actorPrefix: 'customer:',
  actorKey(actor: unknown) {
    return this.actorPrefix + (actor as { id: string }).id;
  },
};

async function setup(modelBudgets: ModelCallBudgets, { estimate = true, keyAsMethod = false } = {}) {
  const fixture = documentsFixture();
  @Module({ imports: [VerdictLangChainModule] })
  class AssistantModule {}
  // One instant for the whole test: the budgets' hourly window cannot roll over between a run and its standing.
  const now = new Date();
  const { moduleRef } = await fixture.boot({
    imports: [AssistantModule, EventEmitterModule.forRoot()],
    budgets: new InMemoryBudgetStore(),
    ...(keyAsMethod ? methodActorKey : { actorKey: (actor: { id: string }) => actor.id }),
    modelBudgets,
    clock: () => now,
  });
  booted.push(moduleRef);
  const exceeded: ModelBudgetExceeded[] = [];
  moduleRef.get(EventEmitter2).on(ModelBudgetExceeded.event, (event: ModelBudgetExceeded) => exceeded.push(event));
  const contexts = moduleRef.get(ActionContextStore);
  const gate = moduleRef.get(ModelBudgetGate);
  const budget = moduleRef.get(ModelBudgets).forAgent(estimate ? { estimateInputTokens: () => INPUT_ESTIMATE } : {});
  const remaining = async (context: ActionContext) =>
    Object.fromEntries((await gate.standing(context)).map((standing) => [standing.name, standing.remaining]));
  /** A real agent on a scripted model named `model` declaring `maxTokens`, run in `context`. */
  const run = (context: ActionContext, script: ScriptStep[], model = 'scripted-small', maxTokens = MAX_OUTPUT) => {
    const chat = new ScriptedChatModel(script, { model, maxTokens });
    const invoked = contexts
      .run(context, () =>
        createAgent({ model: chat, tools: [lookUp], middleware: [budget.middleware()] }).invoke({
          messages: [new HumanMessage('What is in my plan?')],
        }),
      )
      .catch(unwrap);
    return { chat, invoked };
  };
  /** A real agent asked for a structured response in `responseFormat`, run in `context`. */
  const runWithFormat = (context: ActionContext, script: ScriptStep[], responseFormat: unknown) => {
    const chat = new ScriptedChatModel(script, { model: 'scripted-small', maxTokens: MAX_OUTPUT });
    const agent = createAgent({
      model: chat,
      tools: [lookUp],
      responseFormat: responseFormat as typeof LARGE_REPORT,
      middleware: [budget.middleware()],
    });
    const invoked = contexts
      .run(context, () => agent.invoke({ messages: [new HumanMessage('What is in my plan?')] }))
      .catch(unwrap);
    return { chat, invoked };
  };
  return { run, runWithFormat, remaining, exceeded, contexts, budget };
}

/** A report of many described fields: its JSON schema alone is several thousand bytes. */
const LARGE_REPORT = z.object(
  Object.fromEntries(
    Array.from({ length: 80 }, (_, index) => [
      `finding_${index}`,
      z.string().describe("One finding of the audit, in the customer's own words, with its evidence."),
    ]),
  ),
);
/** A JSON schema with a title: LangChain's tool strategy names its tool after it. */
const SMALL_REPORT = {
  title: 'plan_report',
  type: 'object',
  properties: { answer: { type: 'string' } },
  required: ['answer'],
};

const lookUp = tool(async () => 'The plan has three steps.', {
  name: 'look_up_plan',
  description: 'Look up the plan',
  schema: z.object({}),
});

/** LangChain wraps a middleware's error in its MiddlewareError: the typed error is its cause. */
const unwrap = (error: unknown): never => {
  throw (error as { cause?: unknown }).cause ?? error;
};

const tokensPerActor = (limit: number): ModelCallBudgets => ({
  prices: PRICES,
  budgets: [{ name: 'tokens', measure: 'tokens', limit, per: 'actor', window: 3_600 }],
});

describe('model budgets on a createAgent agent', () => {
  it('control: a run under budget completes, and only the usage the provider reported is spent', async () => {
    const { run, remaining } = await setup({
      prices: PRICES,
      budgets: [
        { name: 'tokens', measure: 'tokens', limit: 1_000, per: 'actor', window: 3_600 },
        { name: 'cost', measure: 'cost', limit: 1_000, per: 'tenant', window: 3_600 },
      ],
    });
    const { invoked } = run(alice, [{ text: 'Your plan is ready.', usage: { input: 30, output: 12 } }]);
    expect((await invoked).messages.at(-1)?.content).toBe('Your plan is ready.');
    // 42 tokens; 30 × 1 + 12 × 2 = 54 units.
    expect(await remaining(alice)).toEqual({ tokens: 958, cost: 946 });
  });

  it('reconciliation: the estimate is held during the call, and what the usage did not take is released', async () => {
    const { run, remaining } = await setup(tokensPerActor(1_000));
    const during: Array<Record<string, number>> = [];
    const { invoked } = run(alice, [
      async () => {
        during.push(await remaining(alice));
        return { text: 'Short answer.', usage: { input: 20, output: 5 } };
      },
    ]);
    await invoked;
    expect(during).toEqual([{ tokens: 1_000 - (INPUT_ESTIMATE + MAX_OUTPUT) }]);
    expect(await remaining(alice)).toEqual({ tokens: 975 });
  });

  it('attack: a run over budget stops before the model call, with ModelBudgetExceededError and the event', async () => {
    const { run, remaining, exceeded } = await setup(tokensPerActor(250));
    // Two runs fit (100 reserved, 100 spent each); the third estimate (100) does not fit the 50 left.
    const { chat, invoked } = run(alice, [{ text: 'one', usage: { input: 60, output: 40 } }]);
    await invoked;
    await run(alice, [{ text: 'two', usage: { input: 60, output: 40 } }]).invoked;
    const again = run(alice, [{ text: 'never said', usage: { input: 1, output: 1 } }]);
    const error = await again.invoked.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ModelBudgetExceededError);
    expect(error).toMatchObject({ budget: 'tokens', measure: 'tokens', per: 'actor' });
    expect(again.chat.callCount).toBe(0);
    expect(chat.callCount).toBe(1);
    expect(await remaining(alice)).toEqual({ tokens: 50 });
    expect(exceeded).toHaveLength(1);
    expect(exceeded[0]).toMatchObject({
      budget: 'tokens',
      model: 'scripted-small',
      limit: 250,
      requested: 100,
      actorFingerprint: fingerprintString('alice'),
      tenantFingerprint: fingerprintString('acme'),
    });
    // Fingerprints and facts only: no message text, no actor id.
    expect(JSON.stringify(exceeded[0])).not.toMatch(/alice|plan/);
  });

  it('attack: a long agent run is stopped mid-run, before the turn that would pass the budget', async () => {
    const { run } = await setup(tokensPerActor(250));
    const turn = { text: 'thinking', usage: { input: 60, output: 40 } };
    const { chat, invoked } = run(alice, [
      { toolCalls: [{ name: 'look_up_plan', args: {}, id: 'call_1' }], usage: turn.usage },
      { toolCalls: [{ name: 'look_up_plan', args: {}, id: 'call_2' }], usage: turn.usage },
      turn,
    ]);
    await expect(invoked).rejects.toBeInstanceOf(ModelBudgetExceededError);
    expect(chat.callCount).toBe(2);
    expect(chat.toolMessages().map((message) => message.content)).toEqual(['The plan has three steps.']);
  });

  it('keeps the whole estimate when the provider reports no usage (fail closed)', async () => {
    const { run, remaining } = await setup(tokensPerActor(1_000));
    await run(alice, [{ text: 'No usage reported.' }]).invoked;
    expect(await remaining(alice)).toEqual({ tokens: 900 });
  });

  it('attack: a provider or proxy that reports zero tokens spends the estimate, not nothing; reported usage is spent as reported (control above)', async () => {
    const { run, remaining } = await setup(tokensPerActor(1_000));
    await run(alice, [{ text: 'Zeros reported.', usage: { input: 0, output: 0 } }]).invoked;
    expect(await remaining(alice)).toEqual({ tokens: 900 });
  });

  it('keeps the estimate of a model call that failed', async () => {
    const { run, remaining } = await setup(tokensPerActor(1_000));
    const { invoked } = run(alice, [
      () => {
        throw new Error('provider unavailable');
      },
    ]);
    await expect(invoked).rejects.toThrow('provider unavailable');
    expect(await remaining(alice)).toEqual({ tokens: 900 });
  });

  it('refuses a model missing from the price table with UnpricedModelError, before calling it and reserving anything', async () => {
    const { run, remaining } = await setup({
      prices: PRICES,
      budgets: [
        { name: 'tokens', measure: 'tokens', limit: 1_000, per: 'actor', window: 3_600 },
        { name: 'cost', measure: 'cost', limit: 1_000, per: 'actor', window: 3_600 },
      ],
    });
    const { chat, invoked } = run(alice, [{ text: 'free?', usage: { input: 1, output: 1 } }], 'scripted-large');
    await expect(invoked).rejects.toBeInstanceOf(UnpricedModelError);
    expect(chat.callCount).toBe(0);
    expect(await remaining(alice)).toEqual({ tokens: 1_000, cost: 1_000 });
  });

  it("per actor: one actor's exhausted budget leaves another actor's untouched", async () => {
    const { run, remaining } = await setup(tokensPerActor(150));
    await run(alice, [{ text: 'one', usage: { input: 60, output: 40 } }]).invoked;
    await expect(run(alice, [{ text: 'two' }]).invoked).rejects.toBeInstanceOf(ModelBudgetExceededError);
    expect(await remaining(bob)).toEqual({ tokens: 150 });
    const bobs = run(bob, [{ text: "Bob's answer.", usage: { input: 60, output: 40 } }]);
    expect((await bobs.invoked).messages.at(-1)?.content).toBe("Bob's answer.");
    expect(await remaining(alice)).toEqual({ tokens: 50 });
  });

  it('per actor with a module actorKey written as a method that reads its options: the run completes and spends, and each actor keeps a window of their own', async () => {
    const { run, remaining } = await setup(tokensPerActor(150), { keyAsMethod: true });
    const alices = run(alice, [{ text: 'one', usage: { input: 60, output: 40 } }]);
    expect((await alices.invoked).messages.at(-1)?.content).toBe('one');
    expect(await remaining(alice)).toEqual({ tokens: 50 });
    await expect(run(alice, [{ text: 'two' }]).invoked).rejects.toBeInstanceOf(ModelBudgetExceededError);
    // The control: the key is really the actor's, not one window for all.
    expect(await remaining(bob)).toEqual({ tokens: 150 });
    expect(
      (await run(bob, [{ text: "Bob's answer.", usage: { input: 60, output: 40 } }]).invoked).messages.at(-1)?.content,
    ).toBe("Bob's answer.");
  });

  it('per conversation: a call without a conversation id is a wiring fault, not a free call', async () => {
    const { run } = await setup({
      budgets: [{ name: 'chat', measure: 'tokens', limit: 1_000, per: 'conversation', window: 3_600 }],
    });
    const { chat, invoked } = run(alice, [{ text: 'hi' }]);
    await expect(invoked).rejects.toBeInstanceOf(MissingModelBudgetScopeError);
    expect(chat.callCount).toBe(0);
    const inConversation = { ...alice, metadata: { conversationId: 'c-1' } };
    await expect(run(inConversation, [{ text: 'hi', usage: { input: 1, output: 1 } }]).invoked).resolves.toBeDefined();
  });

  it.each([-2, 0.5, Number.NaN])(
    'attack: a model declaring a maximum output (ls_max_tokens) of %p is refused with VerdictConfigurationError, not given the configured maximum; nothing is reserved',
    async (declared) => {
      const { run, remaining } = await setup({ ...tokensPerActor(10_000), maxOutputTokens: 1_024 });
      const { chat, invoked } = run(
        alice,
        [{ text: 'never said', usage: { input: 1, output: 1 } }],
        'scripted-small',
        declared,
      );
      await expect(invoked).rejects.toBeInstanceOf(VerdictConfigurationError);
      expect(chat.callCount).toBe(0);
      expect(await remaining(alice)).toEqual({ tokens: 10_000 });
    },
  );

  it.each([
    [MAX_OUTPUT, MAX_OUTPUT],
    [0, 0],
    // `-1` is "no limit" (Ollama's numPredict): no maximum declared, so the configured one is reserved.
    [-1, 1_024],
  ])('control: a model declaring a maximum output of %p reserves %p output tokens', async (declared, reserved) => {
    const { run, remaining } = await setup({ ...tokensPerActor(10_000), maxOutputTokens: 1_024 });
    const held: Array<Record<string, number>> = [];
    const { invoked } = run(
      alice,
      [
        async () => {
          held.push(await remaining(alice));
          return { text: 'ok', usage: { input: 9, output: 1 } };
        },
      ],
      'scripted-small',
      declared,
    );
    expect((await invoked).messages.at(-1)?.content).toBe('ok');
    expect(held).toEqual([{ tokens: 10_000 - (INPUT_ESTIMATE + reserved) }]);
    expect(await remaining(alice)).toEqual({ tokens: 9_990 });
  });

  it('refuses a model call outside any action context', async () => {
    const { budget } = await setup(tokensPerActor(1_000));
    const chat = new ScriptedChatModel([{ text: 'hi' }], { model: 'scripted-small', maxTokens: MAX_OUTPUT });
    const agent = createAgent({ model: chat, tools: [], middleware: [budget.middleware()] });
    await expect(agent.invoke({ messages: [new HumanMessage('hi')] }).catch(unwrap)).rejects.toBeInstanceOf(
      MissingActionContextError,
    );
    expect(chat.callCount).toBe(0);
  });

  it('estimates input generously by default: the reservation covers what the provider counts', async () => {
    const { run, remaining } = await setup(tokensPerActor(10_000), { estimate: false });
    const held: number[] = [];
    await run(alice, [
      async () => {
        held.push(10_000 - (await remaining(alice)).tokens!);
        return { text: 'ok', usage: { input: 9, output: 1 } };
      },
    ]).invoked;
    const question = 'What is in my plan?';
    expect(held[0]).toBeGreaterThanOrEqual(new TextEncoder().encode(question).length + MAX_OUTPUT);
    expect(estimateInputTokens({ messages: [new HumanMessage(question)], tools: [] })).toBeGreaterThan(question.length);
    expect(await remaining(alice)).toEqual({ tokens: 9_990 });
  });

  it.each([
    ['a zod schema', LARGE_REPORT],
    ['a JSON schema', z.toJSONSchema(LARGE_REPORT)],
    ['toolStrategy(...)', toolStrategy(LARGE_REPORT)],
    ['providerStrategy(...)', providerStrategy(LARGE_REPORT)],
    ['an array of schemas', [LARGE_REPORT]],
  ])(
    'attack: without estimateInputTokens, a responseFormat (%s) whose schema alone exceeds the budget stops the run before the model is called; nothing is spent',
    async (_form, responseFormat) => {
      const { runWithFormat, remaining } = await setup(tokensPerActor(2_000), { estimate: false });
      const { chat, invoked } = runWithFormat(
        alice,
        [{ text: 'never said', usage: { input: 1, output: 1 } }],
        responseFormat,
      );
      await expect(invoked).rejects.toBeInstanceOf(ModelBudgetExceededError);
      expect(chat.callCount).toBe(0);
      expect(await remaining(alice)).toEqual({ tokens: 2_000 });
    },
  );

  it('control: without estimateInputTokens, the same run without a responseFormat, or with a small one, completes under the same limit', async () => {
    const { run, runWithFormat, remaining } = await setup(tokensPerActor(2_000), { estimate: false });
    const plain = run(alice, [{ text: 'Your plan is ready.', usage: { input: 20, output: 5 } }]);
    expect((await plain.invoked).messages.at(-1)?.content).toBe('Your plan is ready.');
    const structured = runWithFormat(
      bob,
      [
        {
          toolCalls: [{ name: 'plan_report', args: { answer: 'ready' }, id: 'call_1' }],
          usage: { input: 20, output: 5 },
        },
      ],
      SMALL_REPORT,
    );
    expect((await structured.invoked).structuredResponse).toEqual({ answer: 'ready' });
    expect(await remaining(alice)).toEqual({ tokens: 1_975 });
    expect(await remaining(bob)).toEqual({ tokens: 1_975 });
  });

  it('does not boot with model budgets but no store, or a malformed budget; forAgent needs modelBudgets', async () => {
    const fixture = documentsFixture();
    await expect(
      fixture.boot({ modelBudgets: tokensPerActor(10), actorKey: (a: { id: string }) => a.id }),
    ).rejects.toThrow(/need a budget store/);
    await expect(
      fixture.boot({ modelBudgets: tokensPerActor(10), budgets: new InMemoryBudgetStore() }),
    ).rejects.toThrow(/counts per actor, but the module has no actorKey/);
    await expect(
      fixture.boot({
        budgets: new InMemoryBudgetStore(),
        modelBudgets: { budgets: [{ name: 'x', measure: 'tokens', limit: -1, per: 'tenant', window: 60 }] },
      }),
    ).rejects.toThrow(/non-negative safe integer/);
    @Module({ imports: [VerdictLangChainModule] })
    class AssistantModule {}
    const { moduleRef } = await fixture.boot({ imports: [AssistantModule] });
    booted.push(moduleRef);
    expect(() => moduleRef.get(ModelBudgets).forAgent()).toThrow(/no modelBudgets/);
  });

  it('does not boot a cost budget without prices, where every model call would throw UnpricedModelError', async () => {
    const costPerTenant = { name: 'cost', measure: 'cost', limit: 1_000, per: 'tenant', window: 3_600 } as const;
    const boot = (prices?: ModelCallBudgets['prices']) =>
      documentsFixture().boot({
        budgets: new InMemoryBudgetStore(),
        modelBudgets: { ...(prices === undefined ? {} : { prices }), budgets: [costPerTenant] },
      });
    for (const prices of [undefined, {}]) {
      const booting = boot(prices);
      await expect(booting).rejects.toBeInstanceOf(VerdictConfigurationError);
      await expect(booting).rejects.toThrow(/budget "cost" measures cost, but there are no prices/);
    }
  });

  it('control: a cost budget with prices boots and counts a priced model; a token budget needs no prices', async () => {
    const { run, remaining } = await setup({
      prices: PRICES,
      budgets: [{ name: 'cost', measure: 'cost', limit: 1_000, per: 'tenant', window: 3_600 }],
    });
    await run(alice, [{ text: 'Three steps.', usage: { input: 50, output: 20 } }]).invoked;
    expect(await remaining(alice)).toEqual({ cost: 1_000 - 50 - 2 * 20 });
    const { moduleRef } = await documentsFixture().boot({
      budgets: new InMemoryBudgetStore(),
      modelBudgets: { budgets: [{ name: 'tokens', measure: 'tokens', limit: 1_000, per: 'tenant', window: 3_600 }] },
    });
    booted.push(moduleRef);
  });
});
