import { afterEach, describe, expect, it } from '@jest/globals';
import { EventEmitterModule } from '@nestjs/event-emitter';
import { Test } from '@nestjs/testing';
import {
  type ActionContext,
  ActionContextStore,
  type AuthorizedAction,
  type CapabilityDefinition,
  EvidenceQuery,
  InProcessDeferredQueue,
  type Plan,
  ProvenanceSource,
  ProvenanceWindow,
  ReviewService,
  Trust,
  VerdictModule,
  VerdictService,
  defineCapability,
  labelContent,
  withPlan,
  withProvenance,
} from '@verdict/nestjs';
import {
  TypeOrmEvidenceQuery,
  TypeOrmEvidenceRecorder,
  TypeOrmExecutionClaimStore,
  TypeOrmReviewItemStore,
  verdictEntities,
  verdictMigrations,
} from '@verdict/nestjs/typeorm';
import {
  type DatabaseEngine,
  type RefundArguments,
  type RefundOrder,
  databaseEngines,
  dropDataSource,
  openDataSource,
  refundFixture,
} from '@verdict/testing-kit';
import { Document, alice, documentsFixture } from '../pipeline/documents.fixture.js';

/**
 * Shadow mode softens policy only (docs/shadow-mode.md, ADR 0098): a capability declared `enforce: false` still
 * refuses resource substitution at `target_refresh`, still parks a `requiresReview` call for its reviewer, and
 * still refuses a call outside the plan in force. Each attack next to its control: the legitimate call runs.
 */

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const outcome = (result: { executed: boolean; decision: { disposition: string; stage: string } }) =>
  result.executed ? 'executed' : `${result.decision.disposition}@${result.decision.stage}`;

async function dataSourceOn(engine: DatabaseEngine) {
  const dataSource = await openDataSource(engine, { entities: verdictEntities, migrations: verdictMigrations });
  cleanups.push(() => dropDataSource(dataSource));
  return dataSource;
}

/** `documents.peek` over the documents fixture, declared `enforce: false`, its evidence in TypeORM on `engine`. */
async function shadowedPeek(engine: DatabaseEngine) {
  const dataSource = await dataSourceOn(engine);
  const fixture = documentsFixture();
  const peeked: number[] = [];
  const peek = fixture.documentCapability(
    { name: 'documents.peek', description: 'Show the title of a document', enforce: false },
    (action) => {
      peeked.push(action.target.id);
      return action.target.title;
    },
  );
  const { moduleRef } = await fixture.boot({
    capabilities: [peek],
    evidence: new TypeOrmEvidenceRecorder(dataSource),
    evidenceQuery: new TypeOrmEvidenceQuery(dataSource),
  });
  cleanups.push(() => moduleRef.close());
  const verdict = moduleRef.get(VerdictService);
  const propose = (context: ActionContext, id: number) =>
    moduleRef
      .get(ActionContextStore)
      .run(context, () => verdict.execute({ capability: 'documents.peek', arguments: { id } }));
  const evidence = moduleRef.get<EvidenceQuery>(EvidenceQuery);
  const timeline = async (correlationId: string) =>
    (await evidence.run(correlationId)).map((record) => `${record.stage}:${record.disposition}`);
  return { fixture, peeked, propose, evidence, timeline };
}

/** The refund lane (every refund parked for staff review), `orders.refund` declared `enforce: false`, on `engine`. */
async function shadowedRefundLane(engine: DatabaseEngine) {
  const dataSource = await dataSourceOn(engine);
  const refunds: AuthorizedAction<RefundArguments, RefundOrder>[] = [];
  const fixture = refundFixture({ record: async (action) => void refunds.push(action) });
  const shadowed: CapabilityDefinition = defineCapability<RefundArguments, RefundOrder, string>(
    {
      ...(fixture.refund as ReturnType<typeof defineCapability<RefundArguments, RefundOrder, string>>),
      enforce: false,
    },
    fixture.refund.executor as never,
  );
  const queue = new InProcessDeferredQueue({ attempts: 1 });
  const items = new TypeOrmReviewItemStore(dataSource);
  const moduleRef = await Test.createTestingModule({
    imports: [
      EventEmitterModule.forRoot(),
      VerdictModule.forRoot({
        abilityFactory: fixture.abilityFactory,
        capabilities: [shadowed],
        evidence: new TypeOrmEvidenceRecorder(dataSource),
        evidenceQuery: new TypeOrmEvidenceQuery(dataSource),
        executionClaims: new TypeOrmExecutionClaimStore(dataSource),
        actorKey: fixture.actorKey,
        review: {
          items,
          queue,
          rehydrate: fixture.rehydrate,
          actorKey: fixture.actorKey,
        },
      }),
    ],
  }).compile();
  await moduleRef.init();
  cleanups.push(() => moduleRef.close());
  const reviews = moduleRef.get(ReviewService);
  const refund = (by: string, orderId: number) =>
    moduleRef
      .get(ActionContextStore)
      .run(fixture.contextOf(by, 'conversation-1'), () =>
        moduleRef
          .get(VerdictService)
          .execute({ capability: 'orders.refund', arguments: { orderId, amount: 120 }, toolCallId: `call_${orderId}` }),
      );
  const pending = () => reviews.pending({ tenant: 'acme', capability: 'orders.refund' });
  const evidence = moduleRef.get<EvidenceQuery>(EvidenceQuery);
  const statusOf = async (itemId: string) => (await items.find(itemId))?.status;
  const reviewer = (id: string) => ({ id, context: fixture.contextOf(id) });
  return { refunds, refund, pending, statusOf, reviews, queue, evidence, reviewer };
}

/** The user's own request: trusted content, in the window of every call made under a plan below. */
const REQUEST = ProvenanceWindow.of([
  labelContent('Show me the title of document 1.', ProvenanceSource.user('chat'), Trust.Trusted),
]);

for (const engine of databaseEngines()) {
  describe(`shadow mode never softens integrity: a capability declared enforce: false [${engine.name}]`, () => {
    it('attack: resource substitution between proposal and refresh is still a deny at target_refresh', async () => {
      const { fixture, peeked, propose, evidence, timeline } = await shadowedPeek(engine);
      // The refresh answers another document than the one proposed (and authorized).
      fixture.hooks.onRefresh = () => new Document(2, 'acme', 'bob', 'swapped');
      const own = await propose(alice, 1);
      expect(outcome(own)).toBe('deny@target_refresh');
      expect(await timeline(own.correlationId)).toEqual(['proposal:permit', 'target_refresh:deny']);
      // Also when CASL, in shadow mode, would only have recorded would_deny for the proposal target.
      fixture.hooks.onRefresh = () => new Document(1, 'acme', 'alice', 'swapped');
      const foreign = await propose(alice, 2);
      expect(outcome(foreign)).toBe('deny@target_refresh');
      expect(await timeline(foreign.correlationId)).toEqual(['proposal:would_deny', 'target_refresh:deny']);
      expect(peeked).toEqual([]);
      expect((await evidence.list({ shadow: true })).map((record) => record.stage)).toEqual(['proposal']);
    });

    it('control: without a substitution the same peeks run in shadow mode', async () => {
      const { peeked, propose, timeline } = await shadowedPeek(engine);
      expect(outcome(await propose(alice, 1))).toBe('executed');
      const foreign = await propose(alice, 2);
      expect(outcome(foreign)).toBe('executed');
      expect(await timeline(foreign.correlationId)).toEqual([
        'proposal:would_deny',
        'target_refresh:permit',
        'execution:would_deny',
      ]);
      expect(peeked).toEqual([1, 2]);
    });

    it('attack: a requiresReview call is still parked for a reviewer, require_review at review, nothing run', async () => {
      const { refunds, refund, pending, statusOf, queue, evidence } = await shadowedRefundLane(engine);
      const own = await refund('customer:72', 1002);
      // customer:73's order: CASL would refuse; in shadow mode that is recorded, and the call is parked all the same.
      const foreign = await refund('customer:72', 1003);
      expect([own, foreign].map(outcome)).toEqual(['require_review@review', 'require_review@review']);
      await queue.idle();
      expect(refunds).toEqual([]);
      const parkedItems = await pending();
      expect(parkedItems).toHaveLength(2);
      for (const item of parkedItems) expect(await statusOf(item.itemId)).toBe('pending');
      const parked = await evidence.run(foreign.correlationId);
      expect(parked.map((record) => `${record.stage}:${record.disposition}`)).toEqual(
        expect.arrayContaining(['proposal:would_deny', 'review:require_review']),
      );
      expect(parked.some((record) => record.stage === 'execution_claim')).toBe(false);
    });

    it('control: in shadow mode the parked refund runs once a reviewer approved it', async () => {
      const { refunds, refund, pending, statusOf, reviews, queue, reviewer } = await shadowedRefundLane(engine);
      expect(outcome(await refund('customer:72', 1002))).toBe('require_review@review');
      const [item] = await pending();
      expect(await reviews.approve(item!.itemId, reviewer('staff:7'))).toMatchObject({ outcome: 'approved' });
      await queue.idle();
      expect(refunds.map((action) => [(action.context.actor as { id: string }).id, action.arguments])).toEqual([
        ['customer:72', { orderId: 1002, amount: 120 }],
      ]);
      expect(await statusOf(item!.itemId)).toBe('executed');
    });

    it('attack: a call outside the plan in force is still a deny at provenance, nothing run', async () => {
      const { peeked, propose, evidence, timeline } = await shadowedPeek(engine);
      const readOnly: Plan = { steps: [{ capability: 'documents.read' }] };
      const outside = await withPlan(readOnly, () => withProvenance(REQUEST, () => propose(alice, 1)));
      expect(outcome(outside)).toBe('deny@provenance');
      expect(outside.decision.reason).toMatch(/^plan [0-9a-f]{16}: capability documents\.peek is not in the plan$/);
      expect(await timeline(outside.correlationId)).toEqual(['provenance:deny']);
      // And a call made in plan mode before any plan was accepted.
      const none = await withPlan(null, () => withProvenance(REQUEST, () => propose(alice, 1)));
      expect(outcome(none)).toBe('deny@provenance');
      expect(peeked).toEqual([]);
      expect(await evidence.list({ shadow: true })).toEqual([]);
    });

    it('control: under a plan naming the capability the same peek runs in shadow mode', async () => {
      const { peeked, propose } = await shadowedPeek(engine);
      const peekPlan: Plan = { steps: [{ capability: 'documents.peek' }] };
      expect(outcome(await withPlan(peekPlan, () => withProvenance(REQUEST, () => propose(alice, 1))))).toBe(
        'executed',
      );
      // CASL in shadow mode: bob's document runs too, recorded would_deny.
      expect(outcome(await withPlan(peekPlan, () => withProvenance(REQUEST, () => propose(alice, 2))))).toBe(
        'executed',
      );
      expect(peeked).toEqual([1, 2]);
    });
  });
}
