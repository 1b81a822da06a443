import { afterEach } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import {
  type ActionContext,
  ActionContextStore,
  InMemoryBudgetStore,
  type ModelBudget,
  ModelBudgetGate,
} from '@verdict/nestjs';
import { documentsFixture } from '../pipeline/documents.fixture.js';

const booted: TestingModule[] = [];
afterEach(async () => {
  await Promise.all(booted.splice(0).map((moduleRef) => moduleRef.close()));
});

/** The one budget of the app: `limit` of `measure` (default: tokens) per `per` (default: actor). */
export type PricedModelBudget = Pick<ModelBudget, 'limit'> & Partial<Pick<ModelBudget, 'measure' | 'per'>>;

/**
 * The documents fixture booted with model budgets, as a runtime's model-budget specs need them: in-memory budget
 * stores, the actor's `id` as `actorKey`, one model priced (`mock-small`, one unit a token in and out; any other model
 * is unpriced) and one hourly budget `tokens` as `budget` says. The clock stands at one instant for the whole test:
 * the budget's window cannot roll over between a call and its standing. Closed after the test.
 *
 * Answers the module's action contexts and model-budget gate (for the runtime's model-budget wrapper), and what is
 * left of the budget for a context.
 */
export async function bootPricedModelBudget({ limit, measure = 'tokens', per = 'actor' }: PricedModelBudget) {
  const now = new Date();
  const { moduleRef } = await documentsFixture().boot({
    clock: () => now,
    budgets: new InMemoryBudgetStore(),
    actorKey: (actor: { id: string }) => actor.id,
    modelBudgets: {
      prices: { 'mock-small': { input: 1_000_000, output: 1_000_000 } },
      budgets: [{ name: 'tokens', measure, limit, per, window: 3_600 }],
    },
  });
  booted.push(moduleRef);
  const contexts = moduleRef.get(ActionContextStore);
  const gate = moduleRef.get(ModelBudgetGate);
  /** What is left of the budget for `context`'s scope. */
  const remaining = async (context: ActionContext) => (await gate.standing(context))[0]!.remaining;
  return { contexts, gate, remaining };
}
