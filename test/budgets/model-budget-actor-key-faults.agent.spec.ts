import { afterEach, describe, expect, it } from '@jest/globals';
import { HumanMessage } from '@langchain/core/messages';
import { Module } from '@nestjs/common';
import { EventEmitter2, EventEmitterModule } from '@nestjs/event-emitter';
import type { TestingModule } from '@nestjs/testing';
import { createAgent } from 'langchain';
import {
  type ActionContext,
  ActionContextStore,
  InMemoryBudgetStore,
  ModelBudgetExceeded,
  ModelBudgetExceededError,
  ModelBudgetGate,
  fingerprintString,
} from '@verdict/nestjs';
import { ModelBudgets, VerdictLangChainModule } from '@verdict/nestjs/langchain';
import { ScriptedChatModel } from '../../libs/testing/src/scripted-chat-model.js';
import { documentsFixture } from '../pipeline/documents.fixture.js';

const booted: TestingModule[] = [];
afterEach(async () => {
  await Promise.all(booted.splice(0).map((moduleRef) => moduleRef.close()));
});

/** Every call reserves 100 tokens (60 estimated in, 40 out at most); the budget holds 150: the second call stops. */
const LIMIT = 150;
const USAGE = { input: 60, output: 40 };

/**
 * A budget counted per tenant or per conversation asks the module's `actorKey` only for the `ModelBudgetExceeded`
 * event. The key looks the actor up in a customer directory, which can be down; a guest has no customer id (`null`).
 */
async function setup(per: 'tenant' | 'conversation') {
  const outage = new Error('customer directory unavailable');
  const directory = { up: true };
  @Module({ imports: [VerdictLangChainModule] })
  class AssistantModule {}
  const now = new Date();
  const { moduleRef } = await documentsFixture().boot({
    imports: [AssistantModule, EventEmitterModule.forRoot()],
    budgets: new InMemoryBudgetStore(),
    actorKey: (actor: { id: string }) => {
      if (!directory.up) throw outage;
      return actor.id.startsWith('guest') ? null : `customer:${actor.id}`;
    },
    modelBudgets: {
      prices: { 'scripted-small': { input: 1_000_000, output: 1_000_000 } },
      budgets: [{ name: 'tokens', measure: 'tokens', limit: LIMIT, per, window: 3_600 }],
    },
    clock: () => now,
  });
  booted.push(moduleRef);
  const exceeded: ModelBudgetExceeded[] = [];
  moduleRef.get(EventEmitter2).on(ModelBudgetExceeded.event, (event: ModelBudgetExceeded) => exceeded.push(event));
  const contexts = moduleRef.get(ActionContextStore);
  const gate = moduleRef.get(ModelBudgetGate);
  const budget = moduleRef.get(ModelBudgets).forAgent({ estimateInputTokens: () => USAGE.input });
  const remaining = async (context: ActionContext) => (await gate.standing(context))[0]!.remaining;
  /** A real agent on a scripted model that answers once, run in `context`; LangChain's wrapper unwrapped. */
  const run = (context: ActionContext) => {
    const chat = new ScriptedChatModel([{ text: 'Your plan is ready.', usage: USAGE }], {
      model: 'scripted-small',
      maxTokens: USAGE.output,
    });
    const invoked = contexts
      .run(context, () =>
        createAgent({ model: chat, tools: [], middleware: [budget.middleware()] }).invoke({
          messages: [new HumanMessage('What is in my plan?')],
        }),
      )
      .catch((error: unknown) => {
        throw (error as { cause?: unknown }).cause ?? error;
      });
    return { chat, invoked };
  };
  return { run, remaining, exceeded, directory, outage };
}

const inConversation = (id: string): ActionContext => ({
  actor: { id },
  tenant: 'acme',
  metadata: { conversationId: 'c-1' },
});

describe.each(['tenant', 'conversation'] as const)(
  "a model budget per %s whose ModelBudgetExceeded event asks the module's actorKey (ADR 0208)",
  (per) => {
    it("attack: a key that throws as the event is built fails the call with the key's error, not the budget stop; nothing is reserved or emitted", async () => {
      const { run, remaining, exceeded, directory, outage } = await setup(per);
      const alice = inConversation('alice');
      await run(alice).invoked;
      expect(await remaining(alice)).toBe(LIMIT - 100);

      directory.up = false;
      const stopped = run(alice);
      // The application's fault, as it is: never relabelled as the budget's decision, attributed to no one.
      await expect(stopped.invoked).rejects.toBe(outage);
      expect(stopped.chat.callCount).toBe(0);
      expect(exceeded).toEqual([]);
      expect(await remaining(alice)).toBe(LIMIT - 100);
    });

    it('control: a key that answers stops the call with ModelBudgetExceededError and an event naming the actor', async () => {
      const { run, exceeded } = await setup(per);
      const alice = inConversation('alice');
      await run(alice).invoked;

      const stopped = run(alice);
      await expect(stopped.invoked).rejects.toBeInstanceOf(ModelBudgetExceededError);
      expect(stopped.chat.callCount).toBe(0);
      expect(exceeded).toHaveLength(1);
      expect(exceeded[0]).toMatchObject({
        per,
        actorFingerprint: fingerprintString('customer:alice'),
        tenantFingerprint: fingerprintString('acme'),
      });
    });

    it('control: an actor whose key names nobody is stopped by the budget as before, the event attributed to no one', async () => {
      const { run, exceeded } = await setup(per);
      const guest = inConversation('guest-7');
      await run(guest).invoked;

      await expect(run(guest).invoked).rejects.toBeInstanceOf(ModelBudgetExceededError);
      expect(exceeded).toHaveLength(1);
      expect(exceeded[0]).toMatchObject({ per, actorFingerprint: null, tenantFingerprint: fingerprintString('acme') });
    });
  },
);
