import { afterEach, describe, expect, it } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import { InMemoryBudgetStore, ModelBudgetGate, type ModelUsage } from '@verdict/nestjs';
import { type Actor, alice, documentsFixture } from '../pipeline/documents.fixture.js';

/**
 * `ModelBudgetGate` is runtime-neutral: a custom runtime integration settles each call with the usage its provider
 * reported. A usage that is not a count of tokens (negative, fractional, not a number, or no input at all) keeps the
 * call's estimate, as `null` does; before, a negative total released more than the call had reserved, handing other
 * calls' in-flight reservations back to the budget.
 */
const booted: TestingModule[] = [];
afterEach(async () => {
  await Promise.all(booted.splice(0).map((moduleRef) => moduleRef.close()));
});

/** A gate with a budget of 1,000 tokens per actor a day; each call may answer up to 50 tokens. */
async function gateOf(): Promise<ModelBudgetGate> {
  // One instant for the whole test: the budget's window (a UTC day) cannot roll over between a call and its settle.
  const now = new Date();
  const { moduleRef } = await documentsFixture().boot({
    clock: () => now,
    budgets: new InMemoryBudgetStore(),
    actorKey: (actor) => (actor as Actor).id,
    modelBudgets: {
      budgets: [{ name: 'tokens', measure: 'tokens', limit: 1_000, per: 'actor', window: 86_400 }],
      maxOutputTokens: 50,
    },
  });
  booted.push(moduleRef);
  return moduleRef.get(ModelBudgetGate);
}

const remaining = async (gate: ModelBudgetGate) => (await gate.standing(alice))[0]!.remaining;

describe('ModelBudgetGate.settle keeps the estimate of a usage that is not a count of tokens', () => {
  // The first three gave back budget before; the last two were kept by the store's own checks, and stay kept.
  it.each<[string, ModelUsage]>([
    ['attack: a negative input', { inputTokens: -900, outputTokens: 0 }],
    ['attack: a negative output', { inputTokens: 10, outputTokens: -900 }],
    ['attack: no input', { inputTokens: 0, outputTokens: 5 }],
    ['also: a fractional total', { inputTokens: 10.5, outputTokens: 1 }],
    ['also: a total that is not a number', { inputTokens: Number.NaN, outputTokens: 1 }],
  ])('%s gives back nothing another call holds', async (_case, usage) => {
    const gate = await gateOf();
    const first = await gate.reserve(alice, { model: 'm', inputTokens: 50, maxOutputTokens: undefined }); // 100
    await gate.reserve(alice, { model: 'm', inputTokens: 850, maxOutputTokens: undefined }); // 900, still running

    await gate.settle(first, usage);

    expect(await remaining(gate)).toBe(0);
    await expect(gate.reserve(alice, { model: 'm', inputTokens: 1, maxOutputTokens: undefined })).rejects.toThrow(
      'budget',
    );
  });

  it('control: a reported usage below the estimate gives back the rest of that call’s reservation only', async () => {
    const gate = await gateOf();
    const first = await gate.reserve(alice, { model: 'm', inputTokens: 50, maxOutputTokens: undefined }); // 100
    await gate.reserve(alice, { model: 'm', inputTokens: 850, maxOutputTokens: undefined }); // 900, still running

    await gate.settle(first, { inputTokens: 50, outputTokens: 10 });

    expect(await remaining(gate)).toBe(40);
    await gate.reserve(alice, { model: 'm', inputTokens: 0, maxOutputTokens: 40 });
  });
});

describe('ModelBudgetGate.settle settles a hold once', () => {
  it('attack: settling one hold twice gives back nothing another call holds', async () => {
    const gate = await gateOf();
    const first = await gate.reserve(alice, { model: 'm', inputTokens: 50, maxOutputTokens: undefined }); // 100
    await gate.reserve(alice, { model: 'm', inputTokens: 850, maxOutputTokens: undefined }); // 900, still running
    await gate.settle(first, { inputTokens: 50, outputTokens: 10 }); // 60 spent, 40 given back

    // A runtime of its own that settles in a `catch` and again in a `finally`.
    await gate.settle(first, { inputTokens: 1, outputTokens: 0 });
    // A copy of the hold is no hold a gate issued either.
    await gate.settle({ ...first }, { inputTokens: 1, outputTokens: 0 });

    expect(await remaining(gate)).toBe(40);
    await expect(gate.reserve(alice, { model: 'm', inputTokens: 1, maxOutputTokens: 40 })).rejects.toThrow('budget');
  });

  it('control: each call’s own hold settles, whatever the order', async () => {
    const gate = await gateOf();
    const first = await gate.reserve(alice, { model: 'm', inputTokens: 50, maxOutputTokens: undefined }); // 100
    const second = await gate.reserve(alice, { model: 'm', inputTokens: 850, maxOutputTokens: undefined }); // 900

    await gate.settle(second, { inputTokens: 850, outputTokens: 0 });
    await gate.settle(first, { inputTokens: 50, outputTokens: 10 });

    expect(await remaining(gate)).toBe(90);
  });
});
