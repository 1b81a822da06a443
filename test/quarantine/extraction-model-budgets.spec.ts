import { afterEach, describe, expect, it } from '@jest/globals';
import { HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { Module } from '@nestjs/common';
import { EventEmitter2, EventEmitterModule } from '@nestjs/event-emitter';
import type { TestingModule } from '@nestjs/testing';
import { createAgent } from 'langchain';
import { z } from 'zod';
import {
  type ActionContext,
  ActionContextStore,
  type BudgetStore,
  InMemoryBudgetStore,
  MissingModelBudgetScopeError,
  ModelBudgetExceeded,
  ModelBudgetExceededError,
  ModelBudgetGate,
  type ModelCallBudgets,
  ProvenanceSource,
  QuarantineService,
  VerdictConfigurationError,
} from '@verdict/nestjs';
import { QuarantinedReaders, VerdictLangChainModule } from '@verdict/nestjs/langchain';
import { ScriptedChatModel, type ScriptStep } from '@verdict/nestjs/testing/langchain';
import { TypeOrmBudgetStore, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, dropDataSource, openDataSource } from '@verdict/testing-kit';
import { type Actor, alice, documentsFixture } from '../pipeline/documents.fixture.js';
import { BILL, BILL_IBAN, lastToolAnswer } from './bill.fixture.js';

/**
 * docs/budgets.md, "Token and cost budgets"; docs/quarantine.md §1: with `modelBudgets`, every call of the
 * quarantined model (`QuarantineService.extract`, the `quarantine_extract` tool) is counted as an agent's model call
 * is — its estimate reserved before the model is asked, the reported usage committed after — and a quarantined model
 * the budgets could not count does not boot. Before, the quarantined model was called directly: extractions of any
 * size passed any budget.
 */
const booted: TestingModule[] = [];
afterEach(async () => {
  await Promise.all(booted.splice(0).map((moduleRef) => moduleRef.close()));
});

const MODEL = 'quarantine-small';
const MAX_OUTPUT = 50;
const PRICES = { [MODEL]: { input: 1_000_000, output: 2_000_000 } }; // 1 and 2 units a token
/** What the quarantined model reports per extraction: well below each extraction's estimate (its prompt's bound). */
const USAGE = { input: 400, output: 20 };
const LIMIT = 2_000;
const tokens = (limit = LIMIT, per: 'actor' | 'conversation' = 'actor'): ModelCallBudgets => ({
  budgets: [{ name: 'tokens', measure: 'tokens', limit, per, window: 86_400 }],
});
const tokensAndCost: ModelCallBudgets = {
  prices: PRICES,
  budgets: [
    { name: 'tokens', measure: 'tokens', limit: LIMIT, per: 'actor', window: 86_400 },
    { name: 'cost', measure: 'cost', limit: 10_000, per: 'tenant', window: 86_400 },
  ],
};

/** A long bill: each extraction's prompt carries all of it (about 1,300 tokens of estimate with the schema). */
const LARGE_BILL = [BILL, ...Array.from({ length: 12 }, (_, n) => `Line ${n + 1}: parts and labour, EUR 10.00`)].join(
  '\n',
);
const billSchema = z.object({ iban: z.string(), amount: z.number() });
const ANSWER = JSON.stringify({ iban: BILL_IBAN, amount: 120 });

/**
 * The documents fixture with quarantined reading on `model` and `modelBudgets` in `store` (default: in memory),
 * the module's clock one instant (the daily window cannot roll over within a test).
 */
async function boot(model: unknown, modelBudgets: ModelCallBudgets, store: BudgetStore = new InMemoryBudgetStore()) {
  @Module({ imports: [VerdictLangChainModule] })
  class AgentModule {}
  const now = new Date();
  const { moduleRef } = await documentsFixture().boot({
    imports: [AgentModule, EventEmitterModule.forRoot()],
    budgets: store,
    actorKey: (actor) => (actor as Actor).id,
    modelBudgets,
    quarantine: { model: model as ScriptedChatModel },
    clock: () => now,
  });
  booted.push(moduleRef);
  const exceeded: ModelBudgetExceeded[] = [];
  moduleRef.get(EventEmitter2).on(ModelBudgetExceeded.event, (event: ModelBudgetExceeded) => exceeded.push(event));
  const contexts = moduleRef.get(ActionContextStore);
  const gate = moduleRef.get(ModelBudgetGate);
  const quarantine = moduleRef.get(QuarantineService);
  /** What each budget has spent for `context` (reservations in flight included). */
  const spent = async (context: ActionContext = alice) =>
    Object.fromEntries((await gate.standing(context)).map(({ name, limit, remaining }) => [name, limit - remaining]));
  /** One extraction of a fresh handle on `text`, as `context`. */
  const extract = (text = LARGE_BILL, context: ActionContext = alice) =>
    contexts.run(context, () =>
      quarantine.extract(quarantine.quarantine(text, ProvenanceSource.mcp('files')), billSchema),
    );
  return { moduleRef, contexts, exceeded, spent, extract };
}

/** The quarantined model: named, priced, `maxTokens` declared, answering `steps` in turn. */
const quarantinedModel = (steps: ScriptStep[]) =>
  new ScriptedChatModel(steps, { label: 'quarantined', model: MODEL, maxTokens: MAX_OUTPUT });

/** `count` extractions one after another: each one's value, or the error it threw. */
async function extractions(extract: () => Promise<unknown>, count: number): Promise<unknown[]> {
  const outcomes: unknown[] = [];
  for (let n = 0; n < count; n++) outcomes.push(await extract().catch((error: unknown) => error));
  return outcomes;
}

const stores: Array<{ name: string; open: () => Promise<{ store: BudgetStore; close: () => Promise<void> }> }> = [
  { name: 'memory', open: async () => ({ store: new InMemoryBudgetStore(), close: async () => {} }) },
  ...databaseEngines().map((engine) => ({
    name: engine.name,
    open: async () => {
      const dataSource = await openDataSource(engine, { entities: verdictEntities, migrations: verdictMigrations });
      return { store: new TypeOrmBudgetStore(dataSource), close: () => dropDataSource(dataSource) };
    },
  })),
];

describe('QuarantineService.extract under model budgets', () => {
  for (const { name, open } of stores) {
    it(`attack [${name}]: repeated large extractions are refused once the token budget is spent, and the quarantined model is not asked for them`, async () => {
      const { store, close } = await open();
      try {
        const model = quarantinedModel(Array.from({ length: 6 }, () => ({ text: ANSWER, usage: USAGE })));
        const app = await boot(model, tokens(), store);

        const outcomes = await extractions(() => app.extract(), 6);

        const answered = outcomes.filter((outcome) => !(outcome instanceof Error));
        const refused = outcomes.slice(answered.length);
        expect(answered.length).toBeGreaterThan(0);
        expect(refused.length).toBeGreaterThan(0);
        for (const error of refused) {
          expect(error).toBeInstanceOf(ModelBudgetExceededError);
          expect(error).toMatchObject({ budget: 'tokens' });
        }
        // The model answered only what fitted: a refused extraction never reached it.
        expect(model.callCount).toBe(answered.length);
        const spent = (await app.spent()).tokens!;
        expect(spent).toBe(answered.length * (USAGE.input + USAGE.output));
        // Each refusal asked for the extraction's whole estimate, which no longer fitted what was left.
        expect(app.exceeded).toHaveLength(refused.length);
        for (const event of app.exceeded) {
          expect(event).toMatchObject({ budget: 'tokens', model: MODEL, limit: LIMIT });
          expect(event.requested).toBeGreaterThan(LIMIT - spent);
        }
      } finally {
        await close();
      }
    });
  }

  it('utility: an extraction within budget answers its value; the reservation is held while the model reads, and only the reported usage stays spent, in tokens and in cost', async () => {
    let held: Record<string, number> = {};
    const app = await boot(
      quarantinedModel([
        async () => {
          held = await app.spent();
          return { text: ANSWER, usage: USAGE };
        },
      ]),
      tokensAndCost,
    );

    await expect(app.extract()).resolves.toMatchObject({ value: { iban: BILL_IBAN, amount: 120 } });

    // Reserved before the model was asked: the prompt's bound plus the model's maximum output.
    expect(held.tokens).toBeGreaterThan(USAGE.input + USAGE.output + MAX_OUTPUT);
    expect(await app.spent()).toEqual({
      tokens: USAGE.input + USAGE.output,
      cost: USAGE.input * 1 + USAGE.output * 2,
    });
  });

  it('an answer without usage keeps the whole estimate spent', async () => {
    let held = 0;
    const app = await boot(
      quarantinedModel([
        async () => {
          held = (await app.spent()).tokens!;
          return { text: ANSWER };
        },
      ]),
      tokens(),
    );

    await expect(app.extract()).resolves.toMatchObject({ value: { iban: BILL_IBAN } });

    expect(held).toBeGreaterThan(MAX_OUTPUT);
    expect((await app.spent()).tokens).toBe(held);
  });

  it('a quarantined model that throws keeps the estimate spent, and its own error reaches the caller', async () => {
    const outage = new Error('provider unavailable');
    let held = 0;
    const app = await boot(
      quarantinedModel([
        async () => {
          held = (await app.spent()).tokens!;
          throw outage;
        },
      ]),
      tokens(),
    );

    await expect(app.extract()).rejects.toBe(outage);

    expect(held).toBeGreaterThan(MAX_OUTPUT);
    expect((await app.spent()).tokens).toBe(held);
  });

  it('attack: a per-conversation budget and a context without a conversation is a wiring fault, never a free extraction', async () => {
    const model = quarantinedModel([{ text: ANSWER, usage: USAGE }]);
    const app = await boot(model, tokens(LIMIT, 'conversation'));

    await expect(app.extract()).rejects.toBeInstanceOf(MissingModelBudgetScopeError);
    expect(model.callCount).toBe(0);
    // Control: in a conversation the same extraction is counted there.
    const inConversation = { ...alice, metadata: { conversationId: 'c-1' } };
    await expect(app.extract(LARGE_BILL, inConversation)).resolves.toMatchObject({ value: { amount: 120 } });
    expect(await app.spent(inConversation)).toEqual({ tokens: USAGE.input + USAGE.output });
  });

  it('attack: a refused extraction ends the agent run as ModelBudgetExceededError; the deciding model is never answered', async () => {
    const quarantined = quarantinedModel([{ text: ANSWER, usage: USAGE }]);
    const app = await boot(quarantined, tokens(100));
    const readFile = tool(async () => LARGE_BILL, {
      name: 'read_file',
      description: 'Read a file',
      schema: z.object({ path: z.string() }),
    });
    const deciding = new ScriptedChatModel(
      [
        { toolCalls: [{ name: 'read_file', args: { path: 'bill.txt' }, id: 'call_read' }] },
        (messages) => ({
          toolCalls: [
            {
              name: 'quarantine_extract',
              args: { handle: lastToolAnswer(messages).quarantined, schema: 'bill' },
              id: 'call_extract',
            },
          ],
        }),
        { text: 'done' },
      ],
      { label: 'deciding' },
    );
    const reading = app.moduleRef.get(QuarantinedReaders).forAgent({ schemas: { bill: billSchema } });
    const agent = createAgent({ model: deciding, tools: [readFile], middleware: [reading.middleware()] });

    const failure = await app.contexts
      .run(alice, () => agent.invoke({ messages: [new HumanMessage('Pay the bill in bill.txt.')] }))
      .catch((error: unknown) => error);

    // LangChain may wrap a middleware's error in its MiddlewareError: the typed error is its cause.
    const cause = (failure as { cause?: unknown }).cause ?? failure;
    expect(cause).toBeInstanceOf(ModelBudgetExceededError);
    expect(quarantined.callCount).toBe(0);
    expect(deciding.callCount).toBe(2);
    expect(deciding.toolMessages().map((message) => message.tool_call_id)).toEqual(['call_read']);
  });
});

describe('the quarantined model under model budgets, at boot', () => {
  it.each([
    ['an unnamed model under a cost budget', new ScriptedChatModel([], { maxTokens: MAX_OUTPUT }), /no name/],
    [
      'a model without a price under a cost budget',
      new ScriptedChatModel([], { model: 'quarantine-large', maxTokens: MAX_OUTPUT }),
      /"quarantine-large" has no price/,
    ],
  ])('attack: %s does not boot', async (_case, model, reason) => {
    const failure = await boot(model, tokensAndCost).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(VerdictConfigurationError);
    expect((failure as Error).message).toContain('quarantine.model');
    expect((failure as Error).message).toMatch(reason);
  });

  it('attack: a model that declares no maximum output, with none in modelBudgets or its price, does not boot', async () => {
    const failure = await boot(new ScriptedChatModel([], { model: MODEL }), tokens()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(VerdictConfigurationError);
    expect((failure as Error).message).toContain('quarantine.model');
    expect((failure as Error).message).toMatch(/declares no maximum output/);
  });

  it.each<[string, unknown, ModelCallBudgets]>([
    ['named, priced and bounded under a cost budget', quarantinedModel([]), tokensAndCost],
    [
      'unnamed, under token budgets with a configured maximum output',
      new ScriptedChatModel([]),
      { ...tokens(), maxOutputTokens: MAX_OUTPUT },
    ],
    [
      'bounded by its price entry',
      new ScriptedChatModel([], { model: MODEL }),
      { ...tokensAndCost, prices: { [MODEL]: { ...PRICES[MODEL], maxOutputTokens: MAX_OUTPUT } } },
    ],
  ])('control: a quarantined model %s boots', async (_case, model, modelBudgets) => {
    await expect(boot(model, modelBudgets)).resolves.toBeDefined();
  });
});
