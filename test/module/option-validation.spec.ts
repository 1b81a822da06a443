import { describe, expect, it } from '@jest/globals';
import { Module } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { createMongoAbility } from '@casl/ability';
import {
  ActionContextStore,
  type ActionContext,
  ApprovalService,
  type CapabilityDefinition,
  ExecutionTargetPolicy,
  InMemoryApprovalReceiptStore,
  InMemoryBudgetStore,
  InMemoryEvidenceRecorder,
  InMemoryEvidenceQuery,
  InMemoryExecutionClaimStore,
  InMemoryProvenanceLedger,
  InMemoryRateLimitStore,
  InMemoryReviewItemStore,
  InMemoryTrajectoryStore,
  InProcessDeferredQueue,
  PublicMessage,
  ReviewService,
  VerdictConfigurationError,
  VerdictModule,
  VerdictService,
  defineCapability,
  fromContext,
  requiresConfirmation,
  requiresReview,
} from '@verdict/nestjs';
import { runVerdictCli, VerdictCliModule } from '@verdict/nestjs/cli';
import { refundFixture } from '@verdict/testing-kit';
import { z } from 'zod';
import { capturedCli } from '../cli/captured-cli.js';

/**
 * Module options a `forRootAsync` factory returns are not type-checked: `null` from `config.x ?? null`, a `{}`, a
 * string from the environment. Each one below used to boot, then fail the first call with a `TypeError` (or, for an
 * actor key of `null`, silently key review items by the whole actor object); each is now refused at boot with a
 * `VerdictConfigurationError` naming the option, while the legitimate configuration still boots and works.
 */

const context: ActionContext = { actor: { id: 'alice' }, tenant: 'acme', metadata: { conversationId: 'c1' } };
const base = {
  description: 'A capability',
  action: 'read',
  subject: 'all',
  arguments: z.object({}),
  resolveTarget: fromContext(() => ({ id: 1 })),
  executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot<{ id: number }>({ name: 'one', identity: (t) => t.id }),
};
const plain = defineCapability({ ...base, name: 'plain' }, () => 'ran');
const confirmed = defineCapability(
  { ...base, name: 'confirmed', requiresConfirmation: requiresConfirmation({ bind: () => ({}), reason: 'Confirm.' }) },
  () => 'ran',
);
const budgeted = defineCapability(
  { ...base, name: 'budgeted', budget: { amountOf: () => 1, limit: 10, per: 'tenant', window: 60 } },
  () => 'ran',
);
const reviewed = defineCapability(
  { ...base, name: 'reviewed', requiresReview: requiresReview({ bind: () => ({}), reason: 'Reviewed.' }) },
  () => 'ran',
);
const modelBudgets = { budgets: [{ name: 'tokens', measure: 'tokens', limit: 10, per: 'tenant', window: 60 }] };
const ability = { createForContext: () => createMongoAbility([{ action: 'read', subject: 'all' }]) };
const lane = () => ({
  items: new InMemoryReviewItemStore(),
  queue: new InProcessDeferredQueue({ attempts: 1 }),
  rehydrate: () => context,
});
const byId = (actor: { id: string }) => actor.id;

/** Boots Verdict through `forRootAsync` (a factory: what the compiler cannot check) with `options` over a minimum. */
async function boot(options: Record<string, unknown>): Promise<TestingModule> {
  const moduleRef = await Test.createTestingModule({
    imports: [
      VerdictModule.forRootAsync({
        useFactory: () =>
          ({
            abilityFactory: ability,
            evidence: new InMemoryEvidenceRecorder(),
            capabilities: [plain],
            ...options,
          }) as never,
      }),
    ],
  }).compile();
  return moduleRef.init();
}

/** One call of `capability` as alice. */
function call(moduleRef: TestingModule, capability: string) {
  return moduleRef
    .get(ActionContextStore)
    .run(context, () => moduleRef.get(VerdictService).execute({ capability, arguments: {}, toolCallId: 'call_1' }));
}

/** Expects the boot to be refused with a `VerdictConfigurationError` whose message matches `message`. */
async function expectRefused(options: Record<string, unknown>, message: RegExp): Promise<void> {
  const booting = boot(options);
  await expect(booting).rejects.toThrow(VerdictConfigurationError);
  await expect(booting).rejects.toThrow(message);
}

describe('actor keys are functions or absent', () => {
  /** The fixture's refund without its own `requiresReview.actorKey`: the lane's or the module's key decides. */
  function keylessRefund(keys: { module?: unknown; lane?: unknown }) {
    const fixture = refundFixture({ record: async () => {} });
    const refund: CapabilityDefinition = defineCapability(
      { ...fixture.refund, requiresReview: { ...fixture.refund.requiresReview!, actorKey: undefined } },
      fixture.refund.executor as never,
    );
    const options = {
      abilityFactory: fixture.abilityFactory,
      capabilities: [refund],
      executionClaims: new InMemoryExecutionClaimStore(),
      ...('module' in keys ? { actorKey: keys.module } : {}),
      review: {
        items: new InMemoryReviewItemStore(),
        queue: new InProcessDeferredQueue({ attempts: 1 }),
        rehydrate: fixture.rehydrate,
        ...('lane' in keys ? { actorKey: keys.lane } : {}),
      },
    };
    return boot(options);
  }

  it.each([
    [
      'module actorKey: null (a factory’s `config.actorKey ?? null`)',
      { module: null },
      /`actorKey` is null, not a function/,
    ],
    ['review.actorKey: null', { lane: null }, /`review\.actorKey` is null, not a function/],
    ["module actorKey: 'id'", { module: 'id' }, /`actorKey` is a string, not a function/],
    ["review.actorKey: 'id'", { lane: 'id' }, /`review\.actorKey` is a string, not a function/],
  ])(
    'attack: %s is refused at boot, so the requester can never approve their own refund from another session',
    async (_label, keys, message) => {
      const booting = keylessRefund(keys);
      await expect(booting).rejects.toThrow(VerdictConfigurationError);
      await expect(booting).rejects.toThrow(message);
    },
  );

  it.each([
    ['the module', { module: byId }],
    ['the lane', { lane: byId }],
  ])(
    'control: with a key function on %s, another session of the requester is refused and another reviewer approves',
    async (_label, keys) => {
      const moduleRef = await keylessRefund(keys);
      const session = (id: string, name: string): ActionContext => ({
        actor: { id, role: 'staff', session: name },
        tenant: 'acme',
        metadata: { conversationId: `conversation-${name}` },
      });
      const answer = await moduleRef
        .get(ActionContextStore)
        .run(session('staff:7', 'a'), () =>
          moduleRef
            .get(VerdictService)
            .execute({ capability: 'orders.refund', arguments: { orderId: 1003, amount: 10 }, toolCallId: 'call_1' }),
        );
      expect(answer.decision.disposition).toBe('require_review');
      const reviews = moduleRef.get(ReviewService);
      const [item] = await reviews.pending({ tenant: 'acme', capability: 'orders.refund' });
      const approve = (id: string, name: string) => reviews.approve(item!.itemId, { id, context: session(id, name) });
      expect(await approve('staff:7', 'b')).toMatchObject({ outcome: 'own_request' });
      expect(await approve('staff:8', 'c')).toMatchObject({ outcome: 'approved' });
      await moduleRef.close();
    },
  );
});

describe('stores are stores', () => {
  it.each([
    ['approvals: {}', { approvals: {}, capabilities: [confirmed] }, /`approvals` is not an ApprovalReceiptStore/],
    ['approvals: null', { approvals: null, capabilities: [confirmed] }, /`approvals` is not an ApprovalReceiptStore/],
    ['budgets: {} with a budget', { budgets: {}, capabilities: [budgeted] }, /`budgets` is not a BudgetStore/],
    ['budgets: null with a budget', { budgets: null, capabilities: [budgeted] }, /`budgets` is not a BudgetStore/],
    [
      'budgets: {} with callCeilings',
      { budgets: {}, callCeilings: { toolCalls: 5 } },
      /`budgets` is not a BudgetStore/,
    ],
    ['budgets: null with callCeilings', { budgets: null, callCeilings: { toolCalls: 5 } }, /`budgets` is not a/],
    ['budgets: {} with modelBudgets', { budgets: {}, modelBudgets }, /`budgets` is not a BudgetStore/],
    [
      'executionClaims: null next to a working review lane',
      { review: lane(), executionClaims: null, actorKey: byId, capabilities: [reviewed] },
      /`executionClaims` is not an ExecutionClaimStore/,
    ],
    [
      'executionClaims: {} next to a working review lane',
      { review: lane(), executionClaims: {}, actorKey: byId, capabilities: [reviewed] },
      /`executionClaims` is not an ExecutionClaimStore/,
    ],
    [
      'review.items with find only (the lane parks with park)',
      {
        review: { ...lane(), items: { find: () => Promise.resolve(null) } },
        executionClaims: new InMemoryExecutionClaimStore(),
        actorKey: byId,
        capabilities: [reviewed],
      },
      /The review lane needs items \(a ReviewItemStore\)/,
    ],
  ])('attack: %s is refused at boot, not a TypeError at the first call', async (_label, options, message) => {
    await expectRefused(options, message);
  });

  it('control: with real stores each capability boots and is decided as before', async () => {
    const moduleRef = await boot({
      approvals: new InMemoryApprovalReceiptStore(),
      budgets: new InMemoryBudgetStore(),
      callCeilings: { toolCalls: 5 },
      modelBudgets,
      executionClaims: new InMemoryExecutionClaimStore(),
      review: lane(),
      actorKey: byId,
      capabilities: [plain, confirmed, budgeted, reviewed],
    });
    expect((await call(moduleRef, 'confirmed')).decision.disposition).toBe('require_confirmation');
    expect(await call(moduleRef, 'budgeted')).toMatchObject({ executed: true, output: 'ran' });
    expect((await call(moduleRef, 'reviewed')).decision.disposition).toBe('require_review');
    await moduleRef.close();
  });

  it('control: a web-only lane (`work: false`) parks through a queue that only enqueues and closes', async () => {
    const enqueued: unknown[] = [];
    const producer = { enqueue: async (job: unknown) => void enqueued.push(job), close: async () => undefined };
    const moduleRef = await boot({
      review: { ...lane(), queue: producer, work: false },
      actorKey: byId,
      capabilities: [reviewed],
    });
    expect((await call(moduleRef, 'reviewed')).decision.disposition).toBe('require_review');
    await moduleRef.close();
    await expectRefused(
      {
        review: { ...lane(), queue: producer },
        actorKey: byId,
        capabilities: [reviewed],
        executionClaims: new InMemoryExecutionClaimStore(),
      },
      /The review lane needs queue \(a DeferredQueue\)/,
    );
  });
});

describe('module options are what they say', () => {
  it.each([
    [
      'callCeilings: null',
      { budgets: new InMemoryBudgetStore(), callCeilings: null },
      /callCeilings must be .*not null/,
    ],
    [
      'modelBudgets: null',
      { budgets: new InMemoryBudgetStore(), modelBudgets: null },
      /modelBudgets must be .*not null/,
    ],
    [
      'callCeilings.window: null',
      { budgets: new InMemoryBudgetStore(), callCeilings: { toolCalls: 2, window: null } },
      /callCeilings \.window must be a positive whole number of seconds/,
    ],
    [
      'modelBudgets.budgets: [null]',
      { budgets: new InMemoryBudgetStore(), modelBudgets: { budgets: [null] } },
      /modelBudgets has a budget that is not an object/,
    ],
    ['review: null', { review: null }, /`review` is null, not a review lane/],
    ['capabilities: {}', { capabilities: {} }, /`capabilities` is not an array/],
    ['capabilities: [null]', { capabilities: [null] }, /`capabilities\[0\]` is null, not a capability/],
    ["clock: 'x'", { clock: 'x' }, /`clock` is a string, not a function/],
    [
      'evidence: {}',
      { evidence: {} },
      /`evidence` is not an EvidenceRecorder \(no recordDecision, recordRelease method\)/,
    ],
    ['evidence: null', { evidence: null }, /`evidence` is not an EvidenceRecorder/],
    ['evidenceQuery: {}', { evidenceQuery: {} }, /`evidenceQuery` is not an EvidenceQuery \(no list, run method\)/],
    [
      "evidenceLevel: 'verbose'",
      { evidenceLevel: 'verbose' },
      /`evidenceLevel` is 'verbose': pass 'standard' or 'minimal'/,
    ],
    ['publicMessage: 42', { publicMessage: 42 }, /`publicMessage` is a number, not a string/],
    ["tenantOf: 'tenantId'", { tenantOf: 'tenantId' }, /`tenantOf` is a string, not a function/],
    ['resolveContext: {}', { resolveContext: {} }, /`resolveContext` is an object, not a function/],
    [
      'provenance.ledger: {}',
      { provenance: { ledger: {} } },
      /`provenance.ledger` is not a ProvenanceLedger \(no append method\)/,
    ],
  ])('attack: %s is refused at boot with a VerdictConfigurationError naming it', async (_label, options, message) => {
    await expectRefused(options, message);
  });

  it('control: `capabilities: null` and `clock: null` are still unset, and a clock function still stamps the run', async () => {
    const unset = await boot({ capabilities: null, clock: null });
    expect((await call(unset, 'plain')).decision).toMatchObject({ disposition: 'deny', reason: 'unknown capability' });
    await unset.close();
    const evidence = new InMemoryEvidenceRecorder();
    const at = new Date('2030-01-02T03:04:05.000Z');
    const clocked = await boot({
      evidence,
      clock: () => at,
      callCeilings: { toolCalls: 5 },
      budgets: new InMemoryBudgetStore(),
    });
    expect(await call(clocked, 'plain')).toMatchObject({ executed: true, output: 'ran' });
    expect(evidence.decisions().map((record) => record.recordedAt.toISOString())).toContain(at.toISOString());
    expect(evidence.decisions().every((record) => record.recordedAt.getTime() === at.getTime())).toBe(true);
    await clocked.close();
  });

  it('control: a recorder, query, level, message, tenantOf, resolveContext and ledger that are what they say boot and are used', async () => {
    const evidence = new InMemoryEvidenceRecorder();
    const ledger = new InMemoryProvenanceLedger();
    const moduleRef = await boot({
      evidence,
      evidenceQuery: new InMemoryEvidenceQuery(evidence),
      evidenceLevel: 'minimal',
      publicMessage: 'Not done.',
      tenantOf: () => 'acme',
      resolveContext: () => context,
      provenance: { ledger },
    });
    expect(await call(moduleRef, 'plain')).toMatchObject({ executed: true, output: 'ran' });
    expect(moduleRef.get(PublicMessage)).toBe('Not done.');
    expect(evidence.decisions().filter((record) => record.capability === 'plain')).toHaveLength(1);
    await moduleRef.close();
  });
});

/**
 * Options that booted with no capability or mechanism reading them at boot, then failed (or said nothing) where they
 * were read: a store of `null` or `{}` that no capability uses (an approval endpoint, `ApprovalService`, `verdict
 * budgets prune` read it later, with a `TypeError`), a blank `publicMessage` (the model told nothing), and a misspelt
 * key in `modelBudgets`, a budget or a price (read as left out: a `maxOutputToken` reserved no maximum).
 */
describe('options no capability uses are what they say too', () => {
  const tokens = { name: 'tokens', measure: 'tokens', limit: 10, per: 'tenant', window: 60 };
  it.each([
    ['approvals: null', { approvals: null }, /`approvals` is not an ApprovalReceiptStore/],
    ['approvals: {}', { approvals: {} }, /`approvals` is not an ApprovalReceiptStore \(no issue, /],
    ['budgets: null', { budgets: null }, /`budgets` is not a BudgetStore/],
    ['executionClaims: null', { executionClaims: null }, /`executionClaims` is not an ExecutionClaimStore/],
    ['rateLimits: {}', { rateLimits: {} }, /`rateLimits` is not a RateLimitStore \(no consume, prune method\)/],
    [
      'trajectories: { advance: 1 }',
      { trajectories: { advance: 1 } },
      /`trajectories` is not a TrajectoryStore \(no advance method\)/,
    ],
    ["publicMessage: ''", { publicMessage: '' }, /`publicMessage` is blank/],
    ["publicMessage: '  '", { publicMessage: '  ' }, /`publicMessage` is blank/],
    [
      'modelBudgets.maxOutputToken (misspelt)',
      { budgets: new InMemoryBudgetStore(), modelBudgets: { budgets: [tokens], maxOutputToken: 512 } },
      /modelBudgets has an unknown key "maxOutputToken": its keys are prices, budgets, maxOutputTokens/,
    ],
    [
      'a model budget with a key it does not have',
      { budgets: new InMemoryBudgetStore(), modelBudgets: { budgets: [{ ...tokens, scope: 'actor' }] } },
      /modelBudgets budget "tokens" has an unknown key "scope": its keys are name, measure, limit, per, window/,
    ],
    [
      'a price with a misspelt maxOutputTokens',
      {
        budgets: new InMemoryBudgetStore(),
        modelBudgets: { budgets: [tokens], prices: { 'gpt-4o-mini': { input: 15, output: 60, maxTokens: 512 } } },
      },
      /modelBudgets price of "gpt-4o-mini" has an unknown key "maxTokens": its keys are input, output, maxOutputTokens/,
    ],
  ])('attack: %s is refused at boot with a VerdictConfigurationError naming it', async (_label, options, message) => {
    await expectRefused(options, message);
  });

  it('attack: `verdict validate` reports such an option as wiring Verdict refused at boot (exit 1)', async () => {
    const validate = (options: Record<string, unknown>) =>
      capturedCli(() => {
        @Module({
          imports: [
            VerdictModule.forRootAsync({ useFactory: () => ({ abilityFactory: ability, ...options }) as never }),
            VerdictCliModule,
          ],
        })
        class CliModule {}
        return runVerdictCli(CliModule, { argv: ['validate', '--json'] });
      });

    const refused = await validate({ approvals: null });

    expect({ code: refused.code, stdout: refused.stdout }).toEqual({ code: 1, stdout: '' });
    expect(JSON.parse(refused.stderr.trimEnd().split('\n').at(-1)!)).toEqual({
      error: expect.stringMatching(/^Verdict refused the wiring at boot: `approvals` is not an ApprovalReceiptStore/),
    });
    // Control: the same application with a store there is audited (no boot error).
    const audited = await validate({ approvals: new InMemoryApprovalReceiptStore() });
    expect(audited.stderr).not.toMatch(/refused the wiring/);
    expect(JSON.parse(audited.stdout)).toMatchObject({ failed: expect.any(Boolean) });
  });

  it('control: stores no capability uses yet, a message, and model budgets with every key of their own boot', async () => {
    const moduleRef = await boot({
      approvals: new InMemoryApprovalReceiptStore(),
      budgets: new InMemoryBudgetStore(),
      executionClaims: new InMemoryExecutionClaimStore(),
      rateLimits: new InMemoryRateLimitStore(),
      trajectories: new InMemoryTrajectoryStore(),
      publicMessage: ' Not done. ',
      modelBudgets: {
        budgets: [tokens, { name: 'cost', measure: 'cost', limit: 500, per: 'conversation', window: 60 }],
        prices: { 'gpt-4o-mini': { input: 15, output: 60, maxOutputTokens: 512 } },
        maxOutputTokens: 1_024,
        // A key set to `undefined` is left out, as everywhere Verdict reads options (a factory's unset setting).
        unsetByTheFactory: undefined,
      },
    });
    expect(moduleRef.get(PublicMessage)).toBe(' Not done. ');
    expect(await call(moduleRef, 'plain')).toMatchObject({ executed: true, output: 'ran' });
    // The approval service reads the store no capability uses: no receipt is pending for an unknown tool call.
    expect(await moduleRef.get(ApprovalService).pending(['call_unknown'], context)).toEqual([]);
    await moduleRef.close();
  });
});
