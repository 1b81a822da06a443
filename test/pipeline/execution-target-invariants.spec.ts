import { afterEach, describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { z } from 'zod';
import {
  ActionContextStore,
  ApprovalService,
  type AuthorizedAction,
  type ExecutionResult,
  InMemoryApprovalReceiptStore,
  InMemoryEvidenceRecorder,
  InMemoryExecutionClaimStore,
  InMemoryRateLimitStore,
  InMemoryTrajectoryStore,
  TrajectoryScope,
  VerdictModule,
  VerdictService,
  atMostOnce,
  defineCapability,
  fixedWindow,
  forbidStates,
  fromProposal,
  requiresConfirmation,
} from '@verdict/nestjs';
// The storefront's modules themselves, not its entry point: that one loads the LangChain tools and the
// evaluation packs too, which this spec never uses.
import { StorefrontAbilityFactory } from '../../libs/storefront/src/authorization/storefront-ability.factory.js';
import { StorefrontContexts } from '../../libs/storefront/src/authorization/storefront-contexts.js';
import { StorefrontCapabilities } from '../../libs/storefront/src/capabilities/storefront.capabilities.js';
import { StorefrontCapability } from '../../libs/storefront/src/capabilities/storefront-capability.js';
import { Order } from '../../libs/storefront/src/entities/order.entity.js';
import { openSqliteStorefront } from '../../libs/storefront/src/seed/open-sqlite-storefront.js';
import { DataSource } from 'typeorm';
import { Document, alice, documentsFixture } from './documents.fixture.js';
import { InterleavingAbilityFactory } from './interleaving-ability-factory.js';

// docs/architecture.md, invariant: nothing after step 7 is derived from the proposal-stage snapshot. Each test below
// changes the document or order between the proposal stage and the refresh (a new object with the same
// identity, as a second database read returns), so a step that still used the snapshot would be seen.

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type DocumentArguments = { id: number };

/** Documents with one capability per durable gate, each keyed on the document's current title (its edition). */
async function setup() {
  const fixture = documentsFixture();
  /** The target each gate's key or binding function was last given, by gate. */
  const seen: Record<'claim' | 'rateLimit' | 'trajectory' | 'trajectoryKey' | 'binding', unknown[]> = {
    claim: [],
    rateLimit: [],
    trajectory: [],
    trajectoryKey: [],
    binding: [],
  };
  const ran: AuthorizedAction<DocumentArguments, Document>[] = [];
  const byId = fromProposal<DocumentArguments, Document>(({ arguments: args, context }) =>
    fixture.load(context.tenant, args.id),
  );
  const common = {
    action: 'read',
    subject: 'Document',
    arguments: z.object({ id: z.number().int() }),
    resolveTarget: byId,
    executionTarget: fixture.refreshPolicy,
  } as const;
  const execute = (action: AuthorizedAction<DocumentArguments, Document>) => {
    ran.push(action);
    return `${action.capability} ${action.target.title}`;
  };
  const publish = defineCapability(
    {
      ...common,
      name: 'documents.publish',
      description: 'Publish the current edition of a document, once',
      atMostOnce: atMostOnce<DocumentArguments, Document>({
        name: 'publish-edition',
        key: (_envelope, doc) => (seen.claim.push(doc), { tenant: doc.tenant, doc: doc.id, edition: doc.title }),
      }),
    },
    execute,
  );
  const announce = defineCapability(
    {
      ...common,
      name: 'documents.announce',
      description: 'Announce the current edition of a document; one announcement per edition per hour',
      rateLimit: fixedWindow<DocumentArguments, Document>({
        name: 'announcements-per-edition',
        limit: 1,
        windowSeconds: 3600,
        key: (_envelope, doc) => (seen.rateLimit.push(doc), { tenant: doc.tenant, doc: doc.id, edition: doc.title }),
        reason: 'this edition was announced already',
      }),
    },
    execute,
  );
  const share = defineCapability(
    {
      ...common,
      name: 'documents.share',
      description: 'Share a document outside the tenant',
      forbidStates: forbidStates<DocumentArguments, Document>(
        secretsLeaving,
        (_envelope, doc) => (
          seen.trajectory.push(doc),
          { effect: 'share', resource: doc.title.startsWith('secret') ? 'secret' : 'public' }
        ),
        {
          scope: TrajectoryScope.key<Document>(
            'document',
            (context, doc) => (seen.trajectoryKey.push(doc), { tenant: context.tenant, doc: doc.id }),
          ),
        },
      ),
    },
    execute,
  );
  const retract = defineCapability(
    {
      ...common,
      name: 'documents.retract',
      description: 'Retract a document, after its owner approved exactly this edition',
      requiresConfirmation: requiresConfirmation<DocumentArguments, Document>({
        bind: (_envelope, doc) => (seen.binding.push(doc), { tenant: doc.tenant, doc: doc.id, edition: doc.title }),
        reason: 'Retracting takes the document down for every reader.',
      }),
    },
    execute,
  );
  // One instant for the whole test: the hourly rate-limit window cannot roll over between two calls.
  const now = new Date();
  const { moduleRef } = await fixture.boot({
    capabilities: [publish, announce, share, retract],
    executionClaims: new InMemoryExecutionClaimStore(),
    rateLimits: new InMemoryRateLimitStore(),
    trajectories: new InMemoryTrajectoryStore(),
    approvals: new InMemoryApprovalReceiptStore(),
    clock: () => now,
  });
  cleanups.push(() => moduleRef.close());
  const verdict = moduleRef.get(VerdictService);
  const approvals = moduleRef.get(ApprovalService);
  const contexts = moduleRef.get(ActionContextStore);
  const run = (capability: string, toolCallId: string, explicitApproval = false) =>
    contexts.run(alice, () => verdict.execute({ capability, arguments: { id: 1 }, toolCallId }, { explicitApproval }));

  /** A write that lands during the refresh step, just before its read: document 1 gets a new title (a new row object). */
  const retitleDuringRefresh = (title: string) => {
    fixture.hooks.onRefresh = (doc) => {
      fixture.hooks.onRefresh = undefined;
      fixture.documents.set(doc.id, new Document(doc.id, doc.tenant, doc.owner, title));
    };
  };
  /** The refresh returns a new object with the proposal target's identity and a new title; returns that object. */
  const refreshAs = (title: string) => {
    const refreshed = new Document(1, 'acme', 'alice', title);
    fixture.hooks.onRefresh = () => refreshed;
    return refreshed;
  };
  return { ...fixture, seen, ran, run, approvals, retitleDuringRefresh, refreshAs };
}

/** Sharing a secret document outside the tenant is forbidden; public ones may go. */
const secretsLeaving = {
  initial: { secrets_shared: 0 },
  transitions: [{ when: { effect: 'share', resource: 'secret' }, add: { secrets_shared: 1 } }],
  forbidden: [{ id: 'secret_shared', all: [{ field: 'secrets_shared', greater_than: 0 }] }],
};

const outcome = (result: ExecutionResult) =>
  result.executed ? `executed: ${String(result.output)}` : `${result.decision.disposition}@${result.decision.stage}`;

describe('execution-target invariants (nothing after the refresh reads the proposal snapshot)', () => {
  describe('the executor', () => {
    it('receives the object the refresh returned, not the proposal-stage snapshot', async () => {
      const { run, ran, refreshAs } = await setup();
      const refreshed = refreshAs('alice plan, revised');
      const result = await run('documents.publish', 'call_1');
      expect(outcome(result)).toBe('executed: documents.publish alice plan, revised');
      expect(ran).toHaveLength(1);
      expect(ran[0].target).toBe(refreshed);
    });

    it('cancels an order that was edited after the proposal was resolved, against its refreshed version', async () => {
      // orders.cancel updates on the version of `action.target`: with the snapshot's version it would cancel nothing.
      const dataSource = await openSqliteStorefront();
      cleanups.push(() => dataSource.destroy());
      const abilities = new InterleavingAbilityFactory(new StorefrontAbilityFactory(dataSource));
      const moduleRef = await Test.createTestingModule({
        imports: [
          VerdictModule.forRoot({
            abilityFactory: abilities,
            evidence: new InMemoryEvidenceRecorder(),
            executionClaims: new InMemoryExecutionClaimStore(),
          }),
        ],
        providers: [{ provide: DataSource, useValue: dataSource }, StorefrontCapabilities],
      }).compile();
      await moduleRef.init();
      cleanups.push(() => moduleRef.close());
      const orders = dataSource.getRepository(Order);
      abilities.interleave(() => orders.update({ id: 1002 }, { description: 'One synthetic rain jacket, size L' }));

      const result = await moduleRef.get(ActionContextStore).run(StorefrontContexts.customer72, () =>
        moduleRef.get(VerdictService).execute({
          capability: StorefrontCapability.CancelOrder,
          arguments: { orderId: 1002 },
          toolCallId: 'call_cancel',
        }),
      );

      expect(result).toMatchObject({ executed: true, output: { id: 1002, status: 'cancelled' } });
      expect(await orders.findOneByOrFail({ id: 1002 })).toMatchObject({
        status: 'cancelled',
        description: 'One synthetic rain jacket, size L',
        version: 3,
      });
    });
  });

  describe('the durable gates key on the execution target', () => {
    it('gives every key and binding function the object the refresh returned', async () => {
      const { run, seen, ran, approvals, refreshAs } = await setup();
      // Equal content, so every gate lets the call through: only which object each function sees differs.
      const refreshed = refreshAs('alice plan');
      const results = [
        await run('documents.publish', 'call_publish'),
        await run('documents.announce', 'call_announce'),
        await run('documents.share', 'call_share'),
      ];
      const asked = await run('documents.retract', 'call_retract');
      expect(asked.decision.disposition).toBe('require_confirmation');
      const challenge = (await approvals.challengeForToolCall('call_retract', alice))!;
      await approvals.approve(challenge.receiptId, 'call_retract', 'customer:alice');
      results.push(await run('documents.retract', 'call_retract', true));

      expect(results.every((result) => result.executed)).toBe(true);
      expect(ran.map((action) => action.target)).toEqual([refreshed, refreshed, refreshed, refreshed]);
      expect(ran.every((action) => action.target === refreshed)).toBe(true);
      expect(seen.claim).toHaveLength(1);
      expect(seen.claim[0]).toBe(refreshed);
      expect(seen.rateLimit).toHaveLength(1);
      expect(seen.rateLimit[0]).toBe(refreshed);
      expect(seen.trajectory).toHaveLength(1);
      expect(seen.trajectory[0]).toBe(refreshed);
      expect(seen.trajectoryKey).toHaveLength(1);
      expect(seen.trajectoryKey[0]).toBe(refreshed);
      // Binding: step 5 of the first run (the proposal target), then steps 5 and 10 of the approved run.
      expect(seen.binding).toHaveLength(3);
      expect(seen.binding.map((doc) => doc === refreshed)).toEqual([false, false, true]);
    });

    it.each([
      ['documents.publish', 'an execution claim', 'deny@execution_claim'],
      ['documents.announce', 'a rate-limit unit', 'throttle@rate_limit'],
    ])(
      '%s spends %s of the refreshed edition: a redelivery after an edit during the refresh is refused',
      async (capability, _gate, refused) => {
        const { run, ran, retitleDuringRefresh, documents } = await setup();
        retitleDuringRefresh('alice plan v2');
        const first = await run(capability, 'call_1');
        const redelivered = await run(capability, 'call_2');
        documents.set(1, new Document(1, 'acme', 'alice', 'alice plan v3'));
        const nextEdition = await run(capability, 'call_3');
        expect([first, redelivered, nextEdition].map(outcome)).toEqual([
          `executed: ${capability} alice plan v2`,
          refused,
          `executed: ${capability} alice plan v3`,
        ]);
        expect(ran.map((action) => action.target.title)).toEqual(['alice plan v2', 'alice plan v3']);
      },
    );

    it('folds the effect of the refreshed document: one that became secret during the refresh is not shared', async () => {
      const { run, ran, retitleDuringRefresh } = await setup();
      const publicShare = await run('documents.share', 'call_1');
      retitleDuringRefresh('secret: alice plan');
      const secretShare = await run('documents.share', 'call_2');
      expect(outcome(publicShare)).toBe('executed: documents.share alice plan');
      expect(secretShare.decision).toMatchObject({
        disposition: 'deny',
        stage: 'execution',
        reason: 'forbidden state: secret_shared',
      });
      expect(ran.map((action) => action.target.title)).toEqual(['alice plan']);
    });
  });
});
