import { afterEach, describe, expect, it } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { z } from 'zod';
import {
  ActionContextStore,
  InMemoryBudgetStore,
  type SpendBudget,
  VerdictConfigurationError,
  VerdictService,
  defineCapability,
  fromProposal,
} from '@verdict/nestjs';
import { type Actor, type Document, alice, documentsFixture } from '../pipeline/documents.fixture.js';

type Purchase = { id: number; amountCents: number };

const DAY = 86_400;
const booted: TestingModule[] = [];
afterEach(async () => {
  await Promise.all(booted.splice(0).map((moduleRef) => moduleRef.close()));
});

/** Two capabilities whose budgets both say `name: 'wallet'`: the second's budget differs as `second` says. */
async function setup(second: Partial<SpendBudget<Purchase, Document>>) {
  const fixture = documentsFixture();
  const wallet: SpendBudget<Purchase, Document> = {
    name: 'wallet',
    amountOf: ({ arguments: args }) => args.amountCents,
    limit: 1_000,
    per: 'actor',
    window: DAY,
  };
  const capability = (name: string, budget: SpendBudget<Purchase, Document>) =>
    defineCapability(
      {
        name,
        description: 'Buy a printed copy of a document',
        action: 'read',
        subject: 'Document',
        arguments: z.object({ id: z.number().int(), amountCents: z.number().int() }),
        resolveTarget: fromProposal<Purchase, Document>(({ arguments: args, context }) =>
          fixture.load(context.tenant, args.id),
        ),
        executionTarget: fixture.refreshPolicy,
        budget,
      },
      async () => 'bought',
    );
  // One instant for the whole test: the budget's window (a UTC day) cannot roll over between two purchases.
  const now = new Date();
  const { moduleRef } = await fixture.boot({
    capabilities: [capability('documents.purchase', wallet), capability('documents.express', { ...wallet, ...second })],
    budgets: new InMemoryBudgetStore(),
    actorKey: (actor) => (actor as Actor).id,
    imports: [EventEmitterModule.forRoot()],
    clock: () => now,
  });
  booted.push(moduleRef);
  const verdict = moduleRef.get(VerdictService);
  const contexts = moduleRef.get(ActionContextStore);
  const buy = async (capability: string, amountCents: number) => {
    const result = await contexts.run(alice, () => verdict.execute({ capability, arguments: { id: 1, amountCents } }));
    return result.executed ? 'executed' : `${result.decision.disposition}@${result.decision.stage}`;
  };
  return { buy };
}

describe('shared spend budgets (one name, several capabilities)', () => {
  it('attack: a shared budget declared with a looser limit elsewhere does not boot (it would let the shared window pass the tighter limit)', async () => {
    await expect(setup({ limit: 1_000_000 })).rejects.toBeInstanceOf(VerdictConfigurationError);
    await expect(setup({ limit: 1_000_000 })).rejects.toThrow(/budget "wallet".*documents\.purchase/);
  });

  it('attack: a shared budget declared with another window or scope does not boot (it would silently be two budgets)', async () => {
    await expect(setup({ window: 3_600 })).rejects.toBeInstanceOf(VerdictConfigurationError);
    await expect(setup({ per: 'tenant' })).rejects.toBeInstanceOf(VerdictConfigurationError);
  });

  it('control: declared alike, the capabilities share one window of the budget', async () => {
    const { buy } = await setup({ reason: 'express budget exhausted' });
    expect(await buy('documents.purchase', 600)).toBe('executed');
    expect(await buy('documents.express', 500)).toBe('throttle@budget');
    expect(await buy('documents.express', 400)).toBe('executed');
  });
});
