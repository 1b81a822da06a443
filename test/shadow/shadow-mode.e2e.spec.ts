import { afterEach, describe, expect, it } from '@jest/globals';
import { EventEmitter2, EventEmitterModule } from '@nestjs/event-emitter';
import { z } from 'zod';
import {
  type ActionContext,
  ActionContextStore,
  ContainmentService,
  EvidenceQuery,
  type InMemoryEvidenceRecorder,
  ShadowDecisionRecorded,
  VerdictService,
  atMostOnce,
  defineCapability,
  fixedWindow,
  fromProposal,
} from '@verdict/nestjs';
import {
  TypeOrmContainmentStore,
  TypeOrmEvidenceQuery,
  TypeOrmEvidenceRecorder,
  TypeOrmExecutionClaimStore,
  TypeOrmRateLimitStore,
  verdictEntities,
  verdictMigrations,
} from '@verdict/nestjs/typeorm';
import { databaseEngines, dropDataSource, openDataSource, type DatabaseEngine } from '@verdict/testing-kit';
import { type Document, alice, bob, documentsFixture } from '../pipeline/documents.fixture.js';

type Peek = { id: number; request: string };

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/**
 * `documents.peek` on the documents fixture (CASL: an actor reads only their own documents in their tenant), with a
 * rate limit of 2 per actor and hour and at most one execution per request, its evidence, claims, windows and kill
 * switches in real TypeORM stores on `engine`. `enforce` is the capability's own option.
 */
async function setup(engine: DatabaseEngine, enforce: boolean) {
  const dataSource = await openDataSource(engine, { entities: verdictEntities, migrations: verdictMigrations });
  cleanups.push(() => dropDataSource(dataSource));
  const fixture = documentsFixture();
  const peeked: number[] = [];
  const peek = defineCapability(
    {
      name: 'documents.peek',
      description: 'Show the title of a document',
      action: 'read',
      subject: 'Document',
      arguments: z.object({ id: z.number().int(), request: z.string().min(1) }),
      resolveTarget: fromProposal<Peek, Document>(({ arguments: args, context }) =>
        fixture.load(context.tenant, args.id),
      ),
      executionTarget: fixture.refreshPolicy,
      rateLimit: fixedWindow<Peek, Document>({
        name: 'peeks',
        limit: 2,
        windowSeconds: 3600,
        key: ({ context }) => ({ actor: (context.actor as { id: string }).id }),
        reason: 'peek rate exceeded',
      }),
      atMostOnce: atMostOnce<Peek, Document>({
        name: 'peek-once',
        key: ({ arguments: args }) => ({ request: args.request }),
      }),
      enforce,
    },
    (action) => {
      peeked.push(action.target.id);
      return action.target.title;
    },
  );
  // One instant for the whole test: the hourly rate-limit window cannot roll over between two peeks.
  const now = new Date();
  const { moduleRef } = await fixture.boot({
    clock: () => now,
    capabilities: [peek],
    evidence: new TypeOrmEvidenceRecorder(dataSource),
    evidenceQuery: new TypeOrmEvidenceQuery(dataSource),
    executionClaims: new TypeOrmExecutionClaimStore(dataSource),
    rateLimits: new TypeOrmRateLimitStore(dataSource),
    containment: { store: new TypeOrmContainmentStore(dataSource), cacheTtlMs: 0 },
    actorKey: (actor) => (actor as { id: string }).id,
    imports: [EventEmitterModule.forRoot()],
  });
  cleanups.push(() => moduleRef.close());
  const shadowEvents: ShadowDecisionRecorded[] = [];
  moduleRef
    .get(EventEmitter2)
    .on(ShadowDecisionRecorded.event, (event: ShadowDecisionRecorded) => shadowEvents.push(event));
  const propose = (context: ActionContext, args: unknown) =>
    moduleRef
      .get(ActionContextStore)
      .run(context, () => moduleRef.get(VerdictService).execute({ capability: 'documents.peek', arguments: args }));
  const evaluate = (context: ActionContext, args: unknown) =>
    moduleRef
      .get(ActionContextStore)
      .run(context, () => moduleRef.get(VerdictService).evaluate({ capability: 'documents.peek', arguments: args }));
  const evidence = moduleRef.get<EvidenceQuery>(EvidenceQuery);
  const timeline = async (correlationId: string) =>
    (await evidence.run(correlationId)).map((record) => `${record.stage}:${record.disposition}`);
  return {
    peeked,
    propose,
    evaluate,
    evidence,
    timeline,
    shadowEvents,
    containment: moduleRef.get(ContainmentService),
  };
}

const outcome = (result: { executed: boolean; decision: { disposition: string; stage: string } }) =>
  result.executed ? 'executed' : `${result.decision.disposition}@${result.decision.stage}`;

for (const engine of databaseEngines()) {
  describe(`shadow mode: a capability declared enforce: false [${engine.name}]`, () => {
    it("control: alice's peek at bob's document runs, recorded as would_deny at both authorizations, with an event", async () => {
      const { peeked, propose, timeline, evidence, shadowEvents } = await setup(engine, false);
      const result = await propose(alice, { id: 2, request: 'r-1' });
      expect(result.executed && result.output).toBe('bob plan');
      expect(peeked).toEqual([2]);
      expect(await timeline(result.correlationId)).toEqual([
        'proposal:would_deny',
        'target_refresh:permit',
        'execution:would_deny',
        'rate_limit:permit',
        'execution_claim:permit',
      ]);
      const shadowed = await evidence.list({ shadow: true });
      expect(shadowed.map((record) => [record.stage, record.disposition])).toEqual([
        ['execution', 'would_deny'],
        ['proposal', 'would_deny'],
      ]);
      expect(JSON.stringify(shadowed)).not.toContain('bob plan');
      expect(shadowEvents.map((event) => [event.stage, event.disposition, event.correlationId])).toEqual([
        ['proposal', 'would_deny', result.correlationId],
        ['execution', 'would_deny', result.correlationId],
      ]);
      expect(await evidence.shadowSummary!()).toEqual([
        expect.objectContaining({
          capability: 'documents.peek',
          stage: 'execution',
          disposition: 'would_deny',
          calls: 1,
        }),
        expect.objectContaining({
          capability: 'documents.peek',
          stage: 'proposal',
          disposition: 'would_deny',
          calls: 1,
        }),
      ]);
    });

    it('attack: dry runs are not calls that went on: evaluate() of the refused peek adds nothing to the summary', async () => {
      const { peeked, propose, evaluate, evidence } = await setup(engine, false);
      // An application asking "may alice peek?" before showing a button: three dry runs, nothing executed.
      for (let i = 0; i < 3; i++) expect((await evaluate(alice, { id: 2, request: 'r-1' })).executed).toBe(false);
      expect(peeked).toEqual([]);
      const dryRuns = await evidence.list({ shadow: true });
      expect(dryRuns.length).toBeGreaterThan(0);
      expect(dryRuns.every((record) => record.toolKind === 'evaluation')).toBe(true);
      expect(await evidence.shadowSummary!()).toEqual([]);
      // The control: the one peek that ran is counted once, next to the dry runs.
      expect(outcome(await propose(alice, { id: 2, request: 'r-1' }))).toBe('executed');
      expect(
        (await evidence.shadowSummary!()).map((row) => [row.stage, row.disposition, row.calls, row.records]),
      ).toEqual([
        ['execution', 'would_deny', 1, 1],
        ['proposal', 'would_deny', 1, 1],
      ]);
    });

    it('control: with enforcement on, the same call is refused by CASL and nothing runs', async () => {
      const { peeked, propose, timeline, evidence, shadowEvents } = await setup(engine, true);
      const result = await propose(alice, { id: 2, request: 'r-1' });
      expect(outcome(result)).toBe('deny@proposal');
      expect(peeked).toEqual([]);
      expect(await timeline(result.correlationId)).toEqual(['proposal:deny']);
      expect(await evidence.list({ shadow: true })).toEqual([]);
      expect(shadowEvents).toEqual([]);
    });

    it('control: a permitted call in shadow mode records no shadow decision', async () => {
      const { propose, evidence, shadowEvents } = await setup(engine, false);
      expect(outcome(await propose(bob, { id: 2, request: 'r-1' }))).toBe('executed');
      expect(await evidence.list({ shadow: true })).toEqual([]);
      expect(shadowEvents).toEqual([]);
    });

    it('softens its rate limit: the third peek in the hour runs, recorded as would_deny at rate_limit', async () => {
      const { peeked, propose, timeline } = await setup(engine, false);
      const results = [];
      for (const request of ['r-1', 'r-2', 'r-3']) results.push(await propose(bob, { id: 2, request }));
      expect(results.map(outcome)).toEqual(['executed', 'executed', 'executed']);
      expect(peeked).toEqual([2, 2, 2]);
      expect(await timeline(results[2]!.correlationId)).toContain('rate_limit:would_deny');
    });

    it('attack: never softens a duplicate execution claim, even of a call CASL would refuse', async () => {
      const { peeked, propose, timeline } = await setup(engine, false);
      expect(outcome(await propose(alice, { id: 2, request: 'r-1' }))).toBe('executed');
      const duplicate = await propose(alice, { id: 2, request: 'r-1' });
      expect(outcome(duplicate)).toBe('deny@execution_claim');
      expect(peeked).toEqual([2]);
      expect(await timeline(duplicate.correlationId)).toEqual([
        'proposal:would_deny',
        'target_refresh:permit',
        'execution:would_deny',
        'rate_limit:permit',
        'execution_claim:deny',
      ]);
    });

    it('attack: never softens an engaged kill switch', async () => {
      const { peeked, propose, containment, evidence } = await setup(engine, false);
      await containment.engage({ scope: 'capability', subject: 'documents.peek', reason: 'INC-1', by: 'operator:7' });
      expect(outcome(await propose(bob, { id: 2, request: 'r-1' }))).toBe('deny@containment');
      expect(outcome(await propose(alice, { id: 2, request: 'r-2' }))).toBe('deny@containment');
      expect(peeked).toEqual([]);
      expect(await evidence.list({ shadow: true })).toEqual([]);
    });

    it('attack: never softens bad input or a target that does not resolve', async () => {
      const { peeked, propose, evidence } = await setup(engine, false);
      expect(outcome(await propose(alice, { id: 'two', request: 'r-1' }))).toBe('deny@proposal');
      expect(outcome(await propose(alice, { id: 2 }))).toBe('deny@proposal');
      // Document 3 is in another tenant: the application's resolver does not find it for acme.
      expect(outcome(await propose(alice, { id: 3, request: 'r-3' }))).toBe('deny@proposal');
      expect(peeked).toEqual([]);
      expect(await evidence.list({ shadow: true })).toEqual([]);
    });
  });
}

describe('shadow mode: what the target is stays enforced', () => {
  it('attack: a resolver answering another subject type is refused, although CASL is in shadow mode', async () => {
    const fixture = documentsFixture();
    const ran: number[] = [];
    // A resolver bug an application could ship: an Order capability that answers a Document.
    const asOrder = defineCapability(
      {
        name: 'orders.view_record',
        description: 'View an order by record id',
        action: 'read',
        subject: 'Order',
        arguments: z.object({ id: z.number().int() }),
        resolveTarget: fromProposal<{ id: number }, Document>(({ arguments: args, context }) =>
          fixture.load(context.tenant, args.id),
        ),
        executionTarget: fixture.refreshPolicy,
        enforce: false,
      },
      (action) => void ran.push(action.target.id),
    );
    const { moduleRef, evidence } = await fixture.boot({ capabilities: [asOrder] });
    cleanups.push(() => moduleRef.close());
    const result = await moduleRef
      .get(ActionContextStore)
      .run(alice, () =>
        moduleRef.get(VerdictService).execute({ capability: 'orders.view_record', arguments: { id: 1 } }),
      );
    expect(outcome(result)).toBe('deny@proposal');
    expect(ran).toEqual([]);
    expect((evidence as InMemoryEvidenceRecorder).decisions().map((record) => record.disposition)).toEqual(['deny']);
  });

  it('keeps every shadow record at the minimal evidence level, next to the latest record of each write', async () => {
    const fixture = documentsFixture();
    const peek = fixture.documentCapability(
      { name: 'documents.peek', description: 'Show the title of a document', enforce: false },
      (action) => action.target.title,
    );
    const { moduleRef, evidence } = await fixture.boot({ capabilities: [peek], evidenceLevel: 'minimal' });
    cleanups.push(() => moduleRef.close());
    const result = await moduleRef
      .get(ActionContextStore)
      .run(alice, () => moduleRef.get(VerdictService).execute({ capability: 'documents.peek', arguments: { id: 2 } }));
    expect(outcome(result)).toBe('executed');
    // Minimal drops target_refresh's permit, never what enforcement would have refused.
    expect(
      (evidence as InMemoryEvidenceRecorder).decisions().map((record) => `${record.stage}:${record.disposition}`),
    ).toEqual(['proposal:would_deny', 'execution:would_deny']);
  });
});
