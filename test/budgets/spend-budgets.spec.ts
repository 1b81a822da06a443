import { afterEach, describe, expect, it } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import { EventEmitterModule, EventEmitter2 } from '@nestjs/event-emitter';
import { z } from 'zod';
import {
  ActionContextStore,
  type ActionContext,
  ClaimResolvedOutOfBandError,
  type ExecutionClaimStore,
  InMemoryBudgetStore,
  InMemoryEvidenceRecorder,
  InMemoryExecutionClaimStore,
  InMemoryRateLimitStore,
  InvalidBudgetAmountError,
  MissingBudgetScopeError,
  type SpendBudget,
  SpendBudgetExceeded,
  VerdictConfigurationError,
  VerdictService,
  atMostOnce,
  defineCapability,
  fixedWindow,
  fromProposal,
} from '@verdict/nestjs';
import { type Actor, type Document, alice, bob, documentsFixture } from '../pipeline/documents.fixture.js';

type Purchase = { id: number; amountCents: number; note?: string };

/** A promise the test settles by hand: holds executors open without sleeping. */
function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const DAY = 86_400;
/** The module's `actorKey` written as a method of its options, reading them through `this`. */
const methodActorKey = {
  actorPrefix: 'customer:',
  actorKey(actor: unknown) {
    return this.actorPrefix + (actor as Actor).id;
  },
};
const booted: TestingModule[] = [];
afterEach(async () => {
  await Promise.all(booted.splice(0).map((moduleRef) => moduleRef.close()));
});

async function setup(
  budget: Partial<SpendBudget<Purchase, Document>> = {},
  boot: { budgets?: false; claims?: ExecutionClaimStore; purchasesPerDay?: number; methodActorKey?: true } = {},
) {
  const fixture = documentsFixture();
  const budgets = new InMemoryBudgetStore();
  let now = new Date('2026-01-01T10:00:00.000Z');
  const bought: number[] = [];
  const executor: { hold?: Promise<void>; fail?: Error; entered?: () => void } = {};
  const purchase = defineCapability(
    {
      name: 'documents.purchase',
      description: 'Buy a printed copy of a document',
      action: 'read',
      subject: 'Document',
      arguments: z.object({ id: z.number().int(), amountCents: z.number().int(), note: z.string().optional() }),
      resolveTarget: fromProposal<Purchase, Document>(({ arguments: args, context }) =>
        fixture.load(context.tenant, args.id),
      ),
      executionTarget: fixture.refreshPolicy,
      budget: {
        amountOf: ({ arguments: args }) => args.amountCents,
        limit: 1_000,
        per: 'actor',
        window: DAY,
        reason: 'print budget exhausted',
        ...budget,
      },
      ...(boot.purchasesPerDay === undefined
        ? {}
        : {
            rateLimit: fixedWindow<Purchase, Document>({
              name: 'purchases',
              limit: boot.purchasesPerDay,
              windowSeconds: DAY,
              key: ({ context }) => ({ actor: (context.actor as Actor).id }),
              reason: 'purchase rate exceeded',
            }),
          }),
      // A purchase with the same note is the same order: its duplicate is refused after the reservation.
      atMostOnce: atMostOnce<Purchase, Document>({
        name: 'purchase-once',
        key: ({ arguments: args, context }) => ({ actor: (context.actor as Actor).id, note: args.note ?? null }),
      }),
    },
    async (action) => {
      executor.entered?.();
      await executor.hold;
      if (executor.fail) throw executor.fail;
      bought.push(action.arguments.amountCents);
      return 'bought';
    },
  );
  const evidence = new InMemoryEvidenceRecorder();
  const { moduleRef } = await fixture.boot({
    capabilities: [purchase],
    budgets: boot.budgets === false ? undefined : budgets,
    executionClaims: boot.claims ?? new InMemoryExecutionClaimStore(),
    rateLimits: new InMemoryRateLimitStore(),
    ...(boot.methodActorKey ? methodActorKey : { actorKey: (actor) => (actor as Actor).id }),
    clock: () => now,
    evidence,
    imports: [EventEmitterModule.forRoot()],
  });
  booted.push(moduleRef);
  const verdict = moduleRef.get(VerdictService);
  const contexts = moduleRef.get(ActionContextStore);
  let call = 0;
  const buy = (context: ActionContext, amountCents: number, note = `order ${++call}`) =>
    contexts.run(context, () =>
      verdict.execute({
        capability: 'documents.purchase',
        arguments: { id: context === bob ? 2 : 1, amountCents, note },
      }),
    );
  const outcomes = (results: { executed: boolean; decision: { disposition: string; stage: string } }[]) =>
    results.map((r) => (r.executed ? 'executed' : `${r.decision.disposition}@${r.decision.stage}`));
  const budgetRecords = () => evidence.decisions().filter((record) => record.stage === 'budget');
  return {
    moduleRef,
    bought,
    executor,
    buy,
    outcomes,
    budgetRecords,
    advance: (seconds: number) => (now = new Date(now.getTime() + seconds * 1000)),
  };
}

describe('spend budgets', () => {
  it('attack: concurrent spends whose executors have not returned yet never take the window past its limit', async () => {
    const { buy, outcomes, executor, bought } = await setup();
    const gate = deferred();
    executor.hold = gate.promise;
    const threeRunning = deferred();
    executor.entered = () => {
      if (++running === 3) threeRunning.resolve();
    };
    let running = 0;
    const refused: string[] = [];
    const threeRefused = deferred();
    const racing = Array.from({ length: 6 }, () =>
      buy(alice, 300).then((result) => {
        if (!result.executed && refused.push(outcomes([result])[0]!) === 3) threeRefused.resolve();
        return result;
      }),
    );
    // Three executors hold their reservations open, nothing committed yet: the other three are refused meanwhile.
    await Promise.all([threeRunning.promise, threeRefused.promise]);
    expect({ refused, bought }).toEqual({ refused: Array(3).fill('throttle@budget'), bought: [] });
    gate.resolve();
    expect(outcomes(await Promise.all(racing)).filter((outcome) => outcome === 'executed')).toHaveLength(3);
    expect(bought).toEqual([300, 300, 300]);
  });

  it('control: spends within the limit execute, and the record says what remains and when the window resets', async () => {
    const { buy, outcomes, budgetRecords } = await setup();
    expect(outcomes([await buy(alice, 600), await buy(alice, 400)])).toEqual(['executed', 'executed']);
    expect(budgetRecords().map((r) => [r.disposition, r.rateLimitLimit, r.rateLimitRemaining])).toEqual([
      ['permit', 1_000, 400],
      ['permit', 1_000, 0],
    ]);
    expect(budgetRecords()[0]!.rateLimitResetAt).toEqual(new Date('2026-01-02T00:00:00.000Z'));
  });

  it('refuses the call that would pass the limit with throttle at budget, its own reason and SpendBudgetExceeded', async () => {
    const { buy, outcomes, budgetRecords, moduleRef, bought } = await setup();
    const events: SpendBudgetExceeded[] = [];
    moduleRef.get(EventEmitter2).on(SpendBudgetExceeded.event, (event: SpendBudgetExceeded) => events.push(event));
    await buy(alice, 700);
    const refused = await buy(alice, 301);
    expect(outcomes([refused])).toEqual(['throttle@budget']);
    expect(budgetRecords().at(-1)).toMatchObject({ disposition: 'throttle', reason: 'print budget exhausted' });
    expect(events.map((event) => [event.capability, event.stage])).toEqual([['documents.purchase', 'budget']]);
    // The refusal spent nothing: what fits still fits.
    expect(outcomes([await buy(alice, 300)])).toEqual(['executed']);
    expect(bought).toEqual([700, 300]);
  });

  it('control: a failed execution releases its reservation', async () => {
    const { buy, outcomes, executor } = await setup();
    const fault = new Error('printer offline');
    executor.fail = fault;
    await expect(buy(alice, 1_000)).rejects.toBe(fault);
    executor.fail = undefined;
    expect(outcomes([await buy(alice, 1_000)])).toEqual(['executed']);
    // Committed this time: the window is full.
    expect(outcomes([await buy(alice, 1)])).toEqual(['throttle@budget']);
  });

  it.each([
    ['cannot be completed (the claim store fails)', 'fail'],
    ['was resolved out of band meanwhile', 'resolved'],
  ] as const)(
    'attack: an executor that returned keeps its amount spent when its claim %s (the failed execution above is the control)',
    async (_, how) => {
      const unreachable = new Error('claim store unreachable');
      /** Completes every claim but the first, whose completion fails or finds the claim resolved already. */
      class FirstCompletionFails extends InMemoryExecutionClaimStore {
        private failed = false;
        override async complete(claimId: string, now: Date): Promise<boolean> {
          if (this.failed) return super.complete(claimId, now);
          this.failed = true;
          if (how === 'fail') throw unreachable;
          return false;
        }
      }
      const { buy, outcomes, bought } = await setup({}, { claims: new FirstCompletionFails() });
      const refused = buy(alice, 1_000);
      if (how === 'fail') await expect(refused).rejects.toBe(unreachable);
      else await expect(refused).rejects.toBeInstanceOf(ClaimResolvedOutOfBandError);
      expect(bought).toEqual([1_000]);
      // The purchase happened: its amount stays spent, so the window is full.
      expect(outcomes([await buy(alice, 1)])).toEqual(['throttle@budget']);
    },
  );

  it('releases the reservation when a later gate refuses (a duplicate order)', async () => {
    const { buy, outcomes } = await setup();
    const first = await buy(alice, 500, 'the same order');
    const duplicate = await buy(alice, 500, 'the same order');
    const other = await buy(alice, 500, 'another order');
    expect(outcomes([first, duplicate, other])).toEqual(['executed', 'deny@execution_claim', 'executed']);
  });

  it('counts per actor: one actor exhausting theirs leaves another untouched; a new window starts afresh', async () => {
    const { buy, outcomes, advance } = await setup();
    await buy(alice, 1_000);
    expect(outcomes([await buy(alice, 1), await buy(bob, 1_000)])).toEqual(['throttle@budget', 'executed']);
    advance(DAY);
    expect(outcomes([await buy(alice, 1_000)])).toEqual(['executed']);
  });

  it('counts per actor with a module actorKey written as a method that reads its options: spent, and each actor keeps a window of their own', async () => {
    const { buy, outcomes, bought } = await setup({}, { methodActorKey: true });
    expect(outcomes([await buy(alice, 1_000), await buy(alice, 1)])).toEqual(['executed', 'throttle@budget']);
    // The control: the key is really the actor's, not one window for all.
    expect(outcomes([await buy(bob, 1_000)])).toEqual(['executed']);
    expect(bought).toEqual([1_000, 1_000]);
  });

  it('counts per tenant across its actors', async () => {
    const { buy, outcomes } = await setup({ per: 'tenant' });
    await buy(alice, 800);
    expect(outcomes([await buy(bob, 300), await buy(bob, 200)])).toEqual(['throttle@budget', 'executed']);
  });

  it('fails closed on an amount that is not a non-negative safe integer: typed error, nothing reserved, nothing run', async () => {
    const { buy, outcomes, bought } = await setup();
    await expect(buy(alice, -500)).rejects.toBeInstanceOf(InvalidBudgetAmountError);
    expect(bought).toEqual([]);
    expect(outcomes([await buy(alice, 1_000)])).toEqual(['executed']);
    expect(outcomes([await buy(alice, 1)])).toEqual(['throttle@budget']);
  });

  it('throws on an invalid amount before any gate spends: a faulty call uses no rate-limit unit', async () => {
    const { buy, outcomes, bought } = await setup({}, { purchasesPerDay: 2 });
    for (const amount of [-1, -500]) await expect(buy(alice, amount)).rejects.toBeInstanceOf(InvalidBudgetAmountError);
    // The control: both units of the day are still there.
    expect(outcomes([await buy(alice, 10), await buy(alice, 20), await buy(alice, 30)])).toEqual([
      'executed',
      'executed',
      'throttle@rate_limit',
    ]);
    expect(bought).toEqual([10, 20]);
  });

  it('fails closed on a call without its scope key: a budget per conversation needs a conversation id', async () => {
    const { buy, bought } = await setup({ per: 'conversation' });
    await expect(buy(alice, 10)).rejects.toBeInstanceOf(MissingBudgetScopeError);
    expect(bought).toEqual([]);
    const inConversation = { ...alice, metadata: { conversationId: 'c-1' } };
    const other = { ...alice, metadata: { conversationId: 'c-2' } };
    await buy(inConversation, 1_000);
    expect((await buy(inConversation, 1)).executed).toBe(false);
    expect((await buy(other, 1_000)).executed).toBe(true);
  });

  it('does not boot a budget without a store, or with a malformed limit', async () => {
    await expect(setup({}, { budgets: false })).rejects.toThrow(/no budget store is configured/);
    await expect(setup({ limit: 1.5 })).rejects.toBeInstanceOf(VerdictConfigurationError);
    await expect(setup({ window: 0 })).rejects.toThrow(/window must be a positive whole number of seconds/);
  });

  it.each([
    ['empty', ''],
    ['blank', '   '],
    ['not a string', 42 as unknown as string],
  ])('does not boot a budget whose reason is %s: its refusals would record no reason', async (_, reason) => {
    const booting = setup({ reason });
    await expect(booting).rejects.toBeInstanceOf(VerdictConfigurationError);
    await expect(booting).rejects.toThrow(/budget whose reason is blank or not a string/);
  });

  it('control: a budget without a reason of its own boots and records the default one when it refuses', async () => {
    const { buy, outcomes, budgetRecords } = await setup({ reason: undefined });
    await buy(alice, 1_000);
    expect(outcomes([await buy(alice, 1)])).toEqual(['throttle@budget']);
    expect(budgetRecords().at(-1)).toMatchObject({ disposition: 'throttle', reason: 'spend budget exhausted' });
  });

  it('does not boot a budget of null (a configuration error, not a TypeError); a capability without one boots', async () => {
    const boot = (budget?: null) => {
      const fixture = documentsFixture();
      const purchase = fixture.documentCapability(
        {
          name: 'documents.purchase',
          description: 'Buy a printed copy of a document',
          ...(budget === null ? { budget: budget as unknown as SpendBudget } : {}),
        },
        () => 'bought',
      );
      return fixture.boot({ capabilities: [purchase], budgets: new InMemoryBudgetStore() });
    };
    const booting = boot(null);
    await expect(booting).rejects.toBeInstanceOf(VerdictConfigurationError);
    await expect(booting).rejects.toThrow(/budget that is not an object/);
    const { moduleRef } = await boot();
    booted.push(moduleRef);
  });
});
