import { describe, expect, it } from '@jest/globals';
import { Injectable, Module, type DynamicModule } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { createMongoAbility } from '@casl/ability';
import {
  ActionContextStore,
  type ActionContext,
  ExecutionTargetPolicy,
  InMemoryApprovalReceiptStore,
  InMemoryBudgetStore,
  InMemoryEvidenceRecorder,
  InMemoryExecutionClaimStore,
  InMemoryProvenanceContentStore,
  InMemoryProvenanceLedger,
  InMemoryRateLimitStore,
  InMemoryReviewItemStore,
  InMemoryTaintLedger,
  InProcessDeferredQueue,
  ProvenanceContents,
  VerdictConfigurationError,
  VerdictModule,
  VerdictService,
  atMostOnce,
  defineCapability,
  fixedWindow,
  fromContext,
  requiresConfirmation,
  requiresReview,
} from '@verdict/nestjs';
import { z } from 'zod';

/**
 * docs/options.md: an option given must be what the table says it is (`null` is not "left out"), and the boot refuses
 * anything else with a `VerdictConfigurationError` naming the option, through `forRoot` and `forRootAsync` alike. Each
 * attack below used to boot (and then misbehave: a web-only process worked the queue, a `'true'` read as "does not
 * mutate", a content store failed its first read) or failed with a raw `TypeError`; each control still boots.
 */

const context: ActionContext = { actor: { id: 'alice' }, tenant: 'acme', metadata: { conversationId: 'c1' } };
const ability = { createForContext: () => createMongoAbility([{ action: 'manage', subject: 'all' }]) };
const base = {
  name: 'cap',
  description: 'A capability',
  action: 'read',
  subject: 'all',
  arguments: z.object({ amount: z.number().optional() }),
  resolveTarget: fromContext(() => ({ id: 1 })),
  executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot<{ id: number }>({ name: 'one', identity: (t) => t.id }),
};
const capability = (extra: Record<string, unknown> = {}) =>
  defineCapability({ ...base, ...extra } as typeof base, () => 'ran');
const byId = (actor: { id: string }) => actor.id;
const tokens = [{ name: 'tokens', measure: 'tokens', limit: 10, per: 'tenant', window: 60 }];

type Way = 'forRoot' | 'forRootAsync';
const WAYS: readonly Way[] = ['forRoot', 'forRootAsync'];

function verdict(way: Way, options: Record<string, unknown>): DynamicModule {
  const full = { abilityFactory: ability, evidence: new InMemoryEvidenceRecorder(), ...options } as never;
  return way === 'forRoot' ? VerdictModule.forRoot(full) : VerdictModule.forRootAsync({ useFactory: () => full });
}

async function boot(way: Way, options: Record<string, unknown>): Promise<TestingModule> {
  const moduleRef = await Test.createTestingModule({ imports: [verdict(way, options)] }).compile();
  return moduleRef.init();
}

/** Expects the boot to be refused with a `VerdictConfigurationError` whose message matches `message`. */
async function expectRefused(way: Way, options: Record<string, unknown>, message: RegExp): Promise<void> {
  const booting = boot(way, options);
  await expect(booting).rejects.toThrow(VerdictConfigurationError);
  await expect(booting).rejects.toThrow(message);
}

async function expectBoots(way: Way, options: Record<string, unknown>): Promise<void> {
  const moduleRef = await boot(way, options);
  await moduleRef.close();
}

function call(moduleRef: TestingModule, name = 'cap') {
  return moduleRef
    .get(ActionContextStore)
    .run(context, () => moduleRef.get(VerdictService).execute({ capability: name, arguments: {}, toolCallId: 'c_1' }));
}

/** A queue that counts the processes that work it. */
function countingQueue() {
  const queue = {
    worked: 0,
    enqueue: async () => undefined,
    work: async () => void queue.worked++,
    close: async () => undefined,
  };
  return queue;
}

describe.each(WAYS)('review.work and review.rehydrate (%s)', (way) => {
  const lane = (extra: Record<string, unknown>) => ({
    items: new InMemoryReviewItemStore(),
    rehydrate: () => context,
    ...extra,
  });

  it.each([
    ["'false' (a string from the environment)", 'false'],
    ["'true'", 'true'],
    ['0', 0],
    ['null', null],
  ])('attack: review.work %s is refused naming it, and nothing works the queue', async (_label, work) => {
    const queue = countingQueue();
    const booting = boot(way, { review: lane({ queue, work }), executionClaims: new InMemoryExecutionClaimStore() });
    await expect(booting).rejects.toThrow(VerdictConfigurationError);
    await expect(booting).rejects.toThrow(/review\.work must be true or false/);
    await expect(booting).rejects.toMatchObject({ context: { option: 'review.work' } });
    expect(queue.worked).toBe(0);
  });

  it.each([
    [true, 1],
    [undefined, 1],
    [false, 0],
  ])('control: review.work %p boots, and the queue is worked %p time(s)', async (work, worked) => {
    const queue = countingQueue();
    const moduleRef = await boot(way, {
      review: lane({ queue, work }),
      executionClaims: new InMemoryExecutionClaimStore(),
    });
    expect(queue.worked).toBe(worked);
    await moduleRef.close();
  });

  it.each([
    ['null', null, /`review\.rehydrate` is null, not a function/],
    ["'x'", 'x', /`review\.rehydrate` is a string, not a function/],
  ])('attack: a web-only lane with rehydrate %s is refused naming it', async (_label, rehydrate, message) => {
    await expectRefused(way, { review: lane({ queue: countingQueue(), work: false, rehydrate }) }, message);
  });

  it('control: a web-only lane boots without rehydrate, and with a rehydrate function', async () => {
    await expectBoots(way, { review: lane({ queue: countingQueue(), work: false, rehydrate: undefined }) });
    await expectBoots(way, { review: lane({ queue: countingQueue(), work: false }) });
  });
});

describe.each(WAYS)('the module’s provenance, with no capability registered (%s)', (way) => {
  it.each([
    ['provenance: null', { provenance: null }, /`provenance` is null, not an object/, 'provenance'],
    [
      "strict: 'true'",
      { provenance: { strict: 'true' } },
      /provenance\.strict must be true or false/,
      'provenance.strict',
    ],
    ['taint: {}', { provenance: { taint: {} } }, /provenance\.taint has no ledger/, 'provenance.taint.ledger'],
    [
      'ledger: {}',
      { provenance: { ledger: {} } },
      /`provenance\.ledger` is not a ProvenanceLedger/,
      'provenance.ledger',
    ],
    [
      'taint.retentionDays: null',
      { provenance: { taint: { ledger: new InMemoryTaintLedger(), retentionDays: null } } },
      /provenance\.taint\.retentionDays must be a positive number of days.*not null/,
      'provenance.taint.retentionDays',
    ],
    ['contents: null', { provenance: { contents: null } }, /`provenance\.contents` is not a/, 'provenance.contents'],
    ['contents: {}', { provenance: { contents: {} } }, /`provenance\.contents` is not a/, 'provenance.contents'],
    ["contents: 'x'", { provenance: { contents: 'x' } }, /`provenance\.contents` is not a/, 'provenance.contents'],
    [
      'contents without forget',
      { provenance: { contents: { keep: async () => undefined, text: async () => undefined } } },
      /`provenance\.contents` is not a ProvenanceContentStore \(no forget method\)/,
      'provenance.contents',
    ],
  ])('attack: %s is refused at boot naming it', async (_label, options, message, option) => {
    const booting = boot(way, options);
    await expect(booting).rejects.toThrow(VerdictConfigurationError);
    await expect(booting).rejects.toThrow(message);
    await expect(booting).rejects.toMatchObject({ context: { option } });
  });

  it('control: a provenance that is what it says boots, and its content store keeps and reads texts', async () => {
    const contents = new InMemoryProvenanceContentStore();
    const moduleRef = await boot(way, {
      provenance: {
        strict: false,
        ledger: new InMemoryProvenanceLedger(),
        taint: { ledger: new InMemoryTaintLedger(), retentionDays: 30 },
        contents,
      },
    });
    const fingerprint = 'f'.repeat(64);
    await contents.keep([{ fingerprint, text: 'kept' }], new Date());
    await expect(moduleRef.get(ProvenanceContents).text(fingerprint)).resolves.toBe('kept');
    await moduleRef.close();
    await expectBoots(way, { provenance: { taint: { ledger: new InMemoryTaintLedger(), retentionDays: undefined } } });
  });
});

describe.each(WAYS)('modelBudgets.prices (%s)', (way) => {
  const budgets = new InMemoryBudgetStore();
  it.each([
    ['null', null, /modelBudgets \.prices must be an object of prices by model name.*not null/],
    ['[]', [], /modelBudgets \.prices must be an object of prices by model name.*not an array/],
  ])('attack: prices %s is refused naming it', async (_label, prices, message) => {
    await expectRefused(way, { budgets, modelBudgets: { budgets: tokens, prices } }, message);
  });

  it('control: prices left out, {} and by model name boot', async () => {
    for (const prices of [undefined, {}, { 'gpt-4o-mini': { input: 15, output: 60 } }])
      await expectBoots(way, { budgets, modelBudgets: { budgets: tokens, prices } });
  });
});

describe.each(WAYS)('isGlobal (%s)', (way) => {
  @Injectable()
  class Consumer {
    constructor(readonly verdict: VerdictService) {}
  }
  @Module({ providers: [Consumer] })
  class FeatureModule {}
  const options = { abilityFactory: ability, evidence: new InMemoryEvidenceRecorder() };
  const withFeature = async (verdictModule: DynamicModule) => {
    const moduleRef = await Test.createTestingModule({ imports: [verdictModule, FeatureModule] }).compile();
    return moduleRef.init();
  };

  if (way === 'forRootAsync') {
    it.each([false, true])(
      'attack: isGlobal: %p returned by useFactory (which Nest never reads) is refused naming it',
      async (isGlobal) => {
        const booting = withFeature(
          VerdictModule.forRootAsync({ useFactory: () => ({ ...options, isGlobal }) as never }),
        );
        await expect(booting).rejects.toThrow(VerdictConfigurationError);
        await expect(booting).rejects.toThrow(/`isGlobal` is not an option the factory can return/);
        await expect(booting).rejects.toMatchObject({ context: { option: 'isGlobal' } });
      },
    );

    it('control: isGlobal beside useFactory scopes the module; left out, it is global', async () => {
      await expect(
        withFeature(VerdictModule.forRootAsync({ isGlobal: false, useFactory: () => options })),
      ).rejects.toThrow(/VerdictService/);
      const moduleRef = await withFeature(VerdictModule.forRootAsync({ useFactory: () => options }));
      expect(moduleRef.get(Consumer).verdict).toBeInstanceOf(VerdictService);
      await moduleRef.close();
    });
  } else {
    it('control: forRoot({ isGlobal: false }) still scopes the module (forRoot takes it out of the options)', async () => {
      await expect(withFeature(VerdictModule.forRoot({ ...options, isGlobal: false }))).rejects.toThrow(
        /VerdictService/,
      );
      const moduleRef = await withFeature(VerdictModule.forRoot({ ...options, isGlobal: true }));
      expect(moduleRef.get(Consumer).verdict).toBeInstanceOf(VerdictService);
      await moduleRef.close();
    });
  }
});

describe.each(WAYS)('a capability’s options (%s)', (way) => {
  const stores = {
    approvals: new InMemoryApprovalReceiptStore(),
    executionClaims: new InMemoryExecutionClaimStore(),
    rateLimits: new InMemoryRateLimitStore(),
    review: {
      items: new InMemoryReviewItemStore(),
      queue: new InProcessDeferredQueue({ attempts: 1 }),
      rehydrate: () => context,
    },
    actorKey: byId,
  };
  const bootCapability = (extra: Record<string, unknown>, module: Record<string, unknown> = stores) =>
    boot(way, { ...module, capabilities: [capability(extra)] });

  it.each([
    ['description left out', { description: undefined }, /needs a non-blank description/],
    ["description ''", { description: '' }, /needs a non-blank description/],
    ["description '  '", { description: '  ' }, /needs a non-blank description/],
    ['description 42', { description: 42 }, /needs a non-blank description/],
    ["mutates 'true'", { mutates: 'true' }, /has a `mutates` that is not a boolean/],
    ['mutates null', { mutates: null }, /has a `mutates` that is not a boolean/],
    ['requiresConfirmation null', { requiresConfirmation: null }, /has a requiresConfirmation that is not an object/],
    ['requiresReview null', { requiresReview: null }, /has a requiresReview that is not an object/],
    ['rateLimit null', { rateLimit: null }, /has a rateLimit that is not an object/],
    ['atMostOnce null', { atMostOnce: null }, /has an atMostOnce that is not an object/],
    ['provenance null', { provenance: null }, /has a provenance that is not an object/],
    ['authorizeFields null', { authorizeFields: null }, /has an authorizeFields that is null, not an array/],
    [
      'a refresh policy without a refresh function',
      {
        executionTarget: ExecutionTargetPolicy.refresh({ name: 'one', identity: () => 1, refresh: undefined as never }),
      },
      /needs an execution-target refresh function \(policy one\)/,
    ],
    [
      'a policy whose identity is no function',
      { executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot({ name: 'one', identity: 'id' as never }) },
      /needs an execution-target identity function \(policy one\)/,
    ],
  ])(
    'attack: %s is refused at boot with a VerdictConfigurationError naming it, not a TypeError',
    async (_label, extra, message) => {
      const booting = bootCapability(extra);
      await expect(booting).rejects.toThrow(VerdictConfigurationError);
      await expect(booting).rejects.toThrow(message);
      await expect(booting).rejects.toMatchObject({ context: { capability: 'cap' } });
    },
  );

  it('control: each policy left out, or given as its builder makes it, boots and runs or parks', async () => {
    const left = await bootCapability({
      requiresConfirmation: undefined,
      requiresReview: undefined,
      rateLimit: undefined,
      atMostOnce: undefined,
      provenance: undefined,
      authorizeFields: undefined,
      mutates: undefined,
    });
    expect(await call(left)).toMatchObject({ executed: true, output: 'ran' });
    await left.close();
    const given = await bootCapability({
      rateLimit: fixedWindow({ name: 'r', limit: 5, windowSeconds: 60, key: () => 'k', reason: 'too many' }),
      atMostOnce: atMostOnce({ name: 'once', key: ({ toolCallId }) => toolCallId }),
      provenance: {},
      authorizeFields: ['amount'],
      mutates: true,
    });
    expect(await call(given)).toMatchObject({ executed: true, output: 'ran' });
    await given.close();
    for (const policy of [
      { requiresConfirmation: requiresConfirmation({ bind: () => ({}), reason: 'Confirm.' }) },
      { requiresReview: requiresReview({ bind: () => ({}), reason: 'Review.' }) },
    ]) {
      const parked = await bootCapability(policy);
      expect((await call(parked)).decision.disposition).toMatch(/^require_(confirmation|review)$/);
      await parked.close();
    }
  });

  it('control: mutates: true is read (strict mode then needs an approval store); mutates: false is not consequential', async () => {
    const strict = { provenance: { strict: true } };
    await expect(bootCapability({ mutates: true }, strict)).rejects.toThrow(/approval receipt store/);
    const moduleRef = await bootCapability({ mutates: false }, strict);
    expect(await call(moduleRef)).toMatchObject({ executed: true, output: 'ran' });
    await moduleRef.close();
  });
});
