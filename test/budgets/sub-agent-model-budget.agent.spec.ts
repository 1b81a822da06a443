import { afterEach, describe, expect, it } from '@jest/globals';
import { HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { Injectable, Module, type Type } from '@nestjs/common';
import type { TestingModule } from '@nestjs/testing';
import { generateText, stepCountIs, wrapLanguageModel } from 'ai';
import { createAgent } from 'langchain';
import { z } from 'zod';
import {
  type ActionContext,
  ActionContextStore,
  ApplicationFaultError,
  InMemoryBudgetStore,
  ModelBudgetExceededError,
  ModelBudgetGate,
  UnreleasedContextError,
  policyStopOf,
} from '@verdict/nestjs';
import { VerdictAiSdkModule, VerdictAiSdkTools, aiSdkModelBudget } from '@verdict/nestjs/ai-sdk';
import {
  ModelBudgets,
  VerdictLangChainModule,
  VerdictTools,
  applicationFaultMiddleware,
} from '@verdict/nestjs/langchain';
import { ScriptedChatModel, type ScriptStep } from '@verdict/nestjs/testing/langchain';
import { scriptedLanguageModel } from '../ai-sdk/scripted-language-model.js';
import { alice, documentsFixture } from '../pipeline/documents.fixture.js';

const booted: TestingModule[] = [];
afterEach(async () => {
  await Promise.all(booted.splice(0).map((moduleRef) => moduleRef.close()));
});

/** Every sub-agent model call is estimated at 60 input tokens plus 40 for its answer: 100 reserved. */
const INPUT_ESTIMATE = 60;
const MAX_OUTPUT = 40;
const DELEGATE = { name: 'delegate', args: { id: 1 }, id: 'outer_delegate_1' };
const inConversation = (id: string): ActionContext => ({ ...alice, metadata: { conversationId: id } });

/** What the outer run answered, or what it rejected with. */
type Outcome = { answer: string; thrown?: undefined } | { answer?: undefined; thrown: unknown };
const settled = (run: Promise<{ messages: { content: unknown }[] }>): Promise<Outcome> =>
  run.then(
    (state) => ({ answer: String(state.messages.at(-1)?.content) }),
    (thrown: unknown) => ({ thrown }),
  );

/**
 * The documents fixture with `documents.delegate`, whose executor runs `executor` (a sub-agent), a model budget of
 * `limit` tokens per conversation, and one runtime's module.
 */
async function bootDelegating(limit: number, executor: () => Promise<string>, runtimeModule: Type) {
  const fixture = documentsFixture();
  const delegate = fixture.documentCapability(
    { name: 'documents.delegate', description: 'Delegate work on a document to a sub-agent' },
    () => executor(),
  );
  // One instant for the whole test: the budget's window cannot roll over between two runs.
  const now = new Date();
  const { moduleRef } = await fixture.boot({
    capabilities: [delegate],
    budgets: new InMemoryBudgetStore(),
    modelBudgets: {
      budgets: [{ name: 'sub-agent-tokens', measure: 'tokens', limit, per: 'conversation', window: 3_600 }],
      maxOutputTokens: MAX_OUTPUT,
    },
    clock: () => now,
    imports: [runtimeModule],
  });
  booted.push(moduleRef);
  return { moduleRef, contexts: moduleRef.get(ActionContextStore) };
}

/**
 * An outer `createAgent` agent whose bound `delegate` (`documents.delegate`) runs a `createAgent` sub-agent in its
 * executor, as the docs' sub-agent pattern does. The sub-agent's model follows `script` under a model budget of
 * `limit` tokens per conversation; the outer agent's model has none. `executor` replaces the sub-agent's run.
 */
async function delegating(
  script: ScriptStep[],
  {
    limit = 1_000,
    faultMiddleware = true,
    executor,
  }: { limit?: number; faultMiddleware?: boolean; executor?: () => Promise<string> } = {},
) {
  const sub: { agent?: ReturnType<typeof createAgent> } = {};
  const runSub = async () => {
    const state = await sub.agent!.invoke({ messages: [new HumanMessage('work on document 1')] });
    return String(state.messages.at(-1)?.content);
  };
  @Injectable()
  class AgentTools {
    constructor(readonly tools: VerdictTools) {}
  }
  @Module({ imports: [VerdictLangChainModule], providers: [AgentTools] })
  class AgentModule {}
  const { moduleRef, contexts } = await bootDelegating(limit, executor ?? runSub, AgentModule);
  const budget = moduleRef.get(ModelBudgets).forAgent({ estimateInputTokens: () => INPUT_ESTIMATE });
  const subModel = new ScriptedChatModel(script);
  sub.agent = createAgent({ model: subModel, middleware: [applicationFaultMiddleware(), budget.middleware()] });
  const schema = z.object({ id: z.number().int() });
  const definition = tool(async () => 'never', { name: DELEGATE.name, description: 'Delegate', schema });
  const outerModel = new ScriptedChatModel([{ toolCalls: [DELEGATE] }, { text: 'outer done' }]);
  const outer = createAgent({
    model: outerModel,
    tools: [moduleRef.get(AgentTools).tools.bound(definition, 'documents.delegate')],
    middleware: faultMiddleware ? [applicationFaultMiddleware()] : [],
  });
  return {
    subModel,
    outerModel,
    /** The outer run in conversation `conversation`. */
    run: (conversation: string) =>
      settled(contexts.run(inConversation(conversation), () => outer.invoke({ messages: [new HumanMessage('go')] }))),
    /** The sub-agent run on its own, at the top, in conversation `conversation`. */
    runSubAlone: (conversation: string) =>
      contexts.run(inConversation(conversation), runSub).then(
        () => undefined,
        (thrown: unknown) => thrown,
      ),
  };
}

/** What a user's catch reads of a budget stop: its class and its fields. */
const stopFacts = (error: unknown) => {
  const stop = error as ModelBudgetExceededError;
  return {
    budget: stop.budget,
    measure: stop.measure,
    per: stop.per,
    resetAt: stop.resetAt,
    code: stop.code,
    message: stop.message,
  };
};

describe("a sub-agent's model-budget stop ends the outer run as the stop itself (ADR 0203)", () => {
  // 60 input tokens estimated and 40 reserved for the answer: a budget of 50 has no room for the first model call.
  it.each([
    ['with applicationFaultMiddleware', true],
    ['without applicationFaultMiddleware', false],
  ])(
    'attack: the outer agent.invoke (%s) rejects with ModelBudgetExceededError, not ApplicationFaultError',
    async (_with, faultMiddleware) => {
      const s = await delegating([{ text: 'never said' }], { limit: 50, faultMiddleware });
      const { thrown } = await s.run('c-nested-stop');
      expect(thrown).toBeInstanceOf(ModelBudgetExceededError);
      expect(thrown).not.toBeInstanceOf(ApplicationFaultError);
      // The same stop as the sub-agent's at the top (where LangChain hands it over as its MiddlewareError's cause).
      const alone = await s.runSubAlone('c-top-stop');
      expect((alone as { cause?: unknown }).cause).toBeInstanceOf(ModelBudgetExceededError);
      expect(stopFacts(thrown)).toEqual(stopFacts((alone as { cause: unknown }).cause));
      expect(stopFacts(thrown)).toMatchObject({ budget: 'sub-agent-tokens', measure: 'tokens', per: 'conversation' });
      // One catch reads both.
      expect(policyStopOf(thrown)).toBe(thrown);
      expect(policyStopOf(alone)).toBeInstanceOf(ModelBudgetExceededError);
      // Neither model was asked past the stop: the outer model never read the stop as a tool's answer.
      expect(s.subModel.callCount).toBe(0);
      expect(s.outerModel.callCount).toBe(1);
    },
  );

  it('control: a sub-agent within its budget completes, and the outer run answers', async () => {
    const s = await delegating([{ text: 'inner done', usage: { input: 30, output: 10 } }], { limit: 1_000 });
    expect(await s.run('c-nested-ok')).toEqual({ answer: 'outer done' });
    expect(s.subModel.callCount).toBe(1);
    expect(s.outerModel.callCount).toBe(2);
  });

  it('control: an executor that throws a plain Error still fails the outer run as ApplicationFaultError', async () => {
    const fault = new Error('the document service is down');
    const s = await delegating([], {
      executor: async () => {
        throw fault;
      },
    });
    const { thrown } = await s.run('c-nested-fault');
    expect(thrown).toBeInstanceOf(ApplicationFaultError);
    expect((thrown as ApplicationFaultError).cause).toBe(fault);
    expect(s.outerModel.callCount).toBe(1);
  });

  it("control: a model-input guard's refusal in a sub-agent is no policy stop: still an ApplicationFaultError", async () => {
    // What LangChain hands over when a sub-agent's guard refuses its model input: the guard's error as the cause.
    const refusal = new UnreleasedContextError('Message 2 (tool)', 'the assistant model');
    const wrapped = new Error('Middleware "VerdictModelInputGuard" failed', { cause: refusal });
    const s = await delegating([], {
      executor: async () => {
        throw wrapped;
      },
    });
    const { thrown } = await s.run('c-nested-guard');
    expect(thrown).toBeInstanceOf(ApplicationFaultError);
    expect((thrown as ApplicationFaultError).cause).toBe(wrapped);
  });
});

describe("an AI SDK sub-agent's model-budget stop inside a bound executor (ADR 0203)", () => {
  /** As {@link delegating}, on the AI SDK: `generateText` loops, the sub-agent's model wrapped in the budget. */
  async function delegatingOnAiSdk(limit: number, executor?: () => Promise<string>) {
    const sub: { run?: () => Promise<string> } = {};
    const { moduleRef, contexts } = await bootDelegating(limit, () => (executor ?? sub.run!)(), VerdictAiSdkModule);
    const budget = aiSdkModelBudget(moduleRef.get(ModelBudgetGate), contexts, {
      estimateInputTokens: () => INPUT_ESTIMATE,
    });
    const subModel = scriptedLanguageModel([{ text: 'inner done' }]);
    sub.run = async () =>
      (await generateText({ model: wrapLanguageModel({ model: subModel, middleware: budget }), prompt: 'work' })).text;
    const tools = {
      delegate: moduleRef.get(VerdictAiSdkTools).bound('documents.delegate', { name: 'delegate' }),
    };
    const outerModel = scriptedLanguageModel([
      { toolCalls: [{ name: 'delegate', input: { id: 1 }, id: 'call_delegate' }] },
      { text: 'outer done' },
    ]);
    const run = contexts.run(inConversation('c-ai-sdk'), () =>
      generateText({ model: outerModel, tools, prompt: 'go', stopWhen: stepCountIs(4) }),
    );
    return {
      run: run.then(
        (result) => ({ answer: result.text }),
        (thrown: unknown) => ({ thrown }),
      ),
      subModel,
    };
  }

  it('attack: the outer generateText rejects with ModelBudgetExceededError, not ApplicationFaultError', async () => {
    const { run, subModel } = await delegatingOnAiSdk(50);
    const outcome = (await run) as Outcome;
    expect(outcome.thrown).toBeInstanceOf(ModelBudgetExceededError);
    expect(outcome.thrown).toMatchObject({ budget: 'sub-agent-tokens', measure: 'tokens', per: 'conversation' });
    expect(subModel.doGenerateCalls).toHaveLength(0);
  });

  it('control: within its budget the sub-agent answers and the outer run completes', async () => {
    const { run } = await delegatingOnAiSdk(1_000);
    expect(await run).toEqual({ answer: 'outer done' });
  });

  it('attack: a fault whose `cause` getter throws is not hidden: an ApplicationFaultError holding the fault', async () => {
    const fault = Object.defineProperty(new TypeError('mapping failed'), 'cause', {
      get() {
        throw new Error('lazy cause');
      },
    });
    const { run } = await delegatingOnAiSdk(1_000, async () => {
      throw fault;
    });
    const outcome = (await run) as Outcome;
    expect(outcome.thrown).toBeInstanceOf(ApplicationFaultError);
    expect(Object.getOwnPropertyDescriptor(outcome.thrown, 'cause')?.value).toBe(fault);
  });
});
