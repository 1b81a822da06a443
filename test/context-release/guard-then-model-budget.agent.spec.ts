import { AbilityBuilder, createMongoAbility } from '@casl/ability';
import { describe, expect, it } from '@jest/globals';
import { HumanMessage } from '@langchain/core/messages';
import { type AgentMiddleware, createAgent } from 'langchain';
import {
  ActionContextStore,
  DataClass,
  Destination,
  InMemoryBudgetStore,
  InMemoryEvidenceRecorder,
  ModelBudgetGate,
  ReleasePolicy,
  Source,
  Trust,
} from '@verdict/nestjs';
import { ModelBudgets, ModelInputGuards } from '@verdict/nestjs/langchain';
import { ScriptedChatModel } from '@verdict/nestjs/testing/langchain';
import { alice } from '../provenance/payments.fixture.js';
import { trackedAgentApp } from '../provenance/tracked-agent.fixture.js';

/**
 * The model-input guard and a model call budget in one agent (docs/context-release.md §6, docs/budgets.md): the
 * guard, then the budget last, `[…, guard, budget]`: the budget counts only calls the guard let through to the
 * provider. In `[budget, guard]` the budget reserves a call the guard then refuses, and that estimate is kept.
 */

const LIMIT = 10_000;
const local = Destination.connection('ollama', 'local-machine');

async function run(order: 'guard,budget' | 'budget,guard', question: string) {
  const app = await trackedAgentApp({
    abilityFactory: { createForContext: () => new AbilityBuilder(createMongoAbility).build() },
    evidence: new InMemoryEvidenceRecorder(),
    publicMessage: 'Not done.',
    actorKey: (actor: { id: string }) => actor.id,
    budgets: new InMemoryBudgetStore(),
    modelBudgets: { budgets: [{ name: 'tokens', measure: 'tokens', limit: LIMIT, per: 'actor', window: 86_400 }] },
    releasePolicies: [
      ReleasePolicy.route(Source.external('x'), local).allow({ classes: [DataClass.Public], trust: [Trust.Untrusted] }),
    ],
  });
  try {
    const guard = app.moduleRef.get(ModelInputGuards).forDestination(local, { toolResults: {} }).middleware();
    const budget = app.moduleRef
      .get(ModelBudgets)
      .forAgent({ estimateInputTokens: () => 100 })
      .middleware();
    const middleware: AgentMiddleware[] = order === 'guard,budget' ? [guard, budget] : [budget, guard];
    const model = new ScriptedChatModel([{ text: 'Hello.', usage: { input: 7, output: 3 } }], {
      model: 'scripted',
      maxTokens: 40,
    });
    const agent = createAgent({ model, tools: [], middleware });
    const error = await app.moduleRef
      .get(ActionContextStore)
      .run(alice, () => agent.invoke({ messages: [new HumanMessage(question)] }))
      .then(() => undefined)
      .catch((caught: unknown) => caught);
    const left = (await app.moduleRef.get(ModelBudgetGate).standing(alice))[0]?.remaining;
    return { error, left, calls: model.transcript.length };
  } finally {
    await app.close();
  }
}

/** A user message that is a JSON document: the guard refuses it before the provider is called. */
const REFUSED = '{"card":"4111111111111111"}';

describe('the model-input guard, then the model call budget last', () => {
  it('attack: [guard, budget]: a call the guard refuses is never reserved', async () => {
    const { error, left, calls } = await run('guard,budget', REFUSED);
    expect(error).toBeDefined();
    expect(calls).toBe(0);
    expect(left).toBe(LIMIT);
  });

  it("utility: [guard, budget]: a call the guard lets through is charged the provider's usage", async () => {
    const { error, left, calls } = await run('guard,budget', 'Hello?');
    expect(error).toBeUndefined();
    expect(calls).toBe(1);
    expect(left).toBe(LIMIT - 10);
  });

  it('the other order, [budget, guard], keeps the estimate of a call the guard refused', async () => {
    const { error, left, calls } = await run('budget,guard', REFUSED);
    expect(error).toBeDefined();
    expect(calls).toBe(0);
    expect(left).toBe(LIMIT - 140);
  });
});
