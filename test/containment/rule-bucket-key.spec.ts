import { describe, expect, it } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import { z } from 'zod';
import {
  type ActionContext,
  ActionContextStore,
  CapabilityDenied,
  ContainmentService,
  type ContainmentRule,
  CrossTenantResourceRequested,
  ExecutionClaimsService,
  ExecutionTargetPolicy,
  InMemoryContainmentStore,
  InMemoryEvidenceRecorder,
  InMemoryRateLimitStore,
  type RateLimitStore,
  TargetNotResolvable,
  VerdictService,
  containmentRule,
  defineCapability,
  fromProposal,
} from '@verdict/nestjs';
import { TypeOrmRateLimitStore, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { databaseEngines, withDataSource } from '@verdict/testing-kit';
import { type Actor, Document, alice, documentsFixture } from '../pipeline/documents.fixture.js';

const SCHEMA = { entities: verdictEntities, migrations: verdictMigrations };
const PROBING = 'probing';
const probing = (windowSeconds: number) =>
  containmentRule({ name: PROBING, on: CrossTenantResourceRequested, threshold: 3, windowSeconds });

/**
 * Nodes of one application in a rolling deploy: each boots the documents domain with its own containment rule
 * and shares the rule counters (the application's rate-limit store, also pruned through `pruneRateLimits`) and the
 * kill switches with the others. `documents.peek` resolves any tenant's document, so alice peeking at globex's
 * document 4 is a cross-tenant request (and a `CapabilityDenied`); her reading bob's document 2 is a denial only.
 */
function cluster(counters: RateLimitStore) {
  let now = new Date('2026-01-01T10:00:00.000Z');
  const store = new InMemoryContainmentStore();
  const modules: TestingModule[] = [];
  async function node(rule: ContainmentRule) {
    const fixture = documentsFixture();
    fixture.documents.set(4, new Document(4, 'globex', 'gina', 'gina plan'));
    const peek = defineCapability(
      {
        name: 'documents.peek',
        description: 'Peek at a document',
        action: 'read',
        subject: 'Document',
        arguments: z.object({ id: z.number().int() }),
        resolveTarget: fromProposal<{ id: number }, Document>(
          ({ arguments: args }) => fixture.documents.get(args.id) ?? TargetNotResolvable.throw('no such document'),
        ),
        executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot<Document>({
          name: 'document-snapshot',
          identity: (doc) => ({ tenant: doc.tenant, id: doc.id }),
        }),
      },
      (action) => action.target.title,
    );
    const { moduleRef } = await fixture.boot({
      capabilities: [peek],
      evidence: new InMemoryEvidenceRecorder(),
      clock: () => now,
      actorKey: (actor: Actor) => `customer:${actor.id}`,
      tenantOf: (target) => (target instanceof Document ? target.tenant : undefined),
      rateLimits: counters,
      containment: { store, cacheTtlMs: 0, ruleCounters: counters, rules: [rule] },
    });
    modules.push(moduleRef);
    const verdict = moduleRef.get(VerdictService);
    const contexts = moduleRef.get(ActionContextStore);
    /** What `context` proposing `capability` on document `id` comes to: `executed` or `<disposition>@<stage>`. */
    const outcome = async (context: ActionContext, capability: string, id: number) => {
      const result = await contexts.run(context, () => verdict.execute({ capability, arguments: { id } }));
      return result.executed ? 'executed' : `${result.decision.disposition}@${result.decision.stage}`;
    };
    return {
      probe: (context: ActionContext) => outcome(context, 'documents.peek', 4),
      readBobs: (context: ActionContext) => outcome(context, 'documents.read', 2),
      readOwn: (context: ActionContext) => outcome(context, 'documents.read', 1),
      prune: () => moduleRef.get(ExecutionClaimsService).pruneRateLimits(),
      engaged: async () => (await moduleRef.get(ContainmentService).list()).map((e) => `${e.scope}:${e.engagedBy}`),
    };
  }
  return {
    node,
    at: (iso: string) => void (now = new Date(`2026-01-01T${iso}:00.000Z`)),
    close: () => Promise.all(modules.map((moduleRef) => moduleRef.close())),
  };
}

const counterStores: { name: string; run: (test: (counters: RateLimitStore) => Promise<void>) => Promise<void> }[] = [
  { name: 'InMemoryRateLimitStore', run: (test) => test(new InMemoryRateLimitStore()) },
  ...databaseEngines().map((engine) => ({
    name: `TypeOrmRateLimitStore [${engine.name}]`,
    run: (test: (counters: RateLimitStore) => Promise<void>) =>
      withDataSource(engine, SCHEMA, (dataSource) => test(new TypeOrmRateLimitStore(dataSource))),
  })),
];

for (const { name, run } of counterStores) {
  describe(`a containment rule counts per rule, event type and window, on ${name}`, () => {
    it('attack: a rule redeployed from 10 minutes to an hour contains at 3 probes within the hour, though a node still on 10 minutes counted into the same epoch-aligned window and that window was pruned', async () => {
      await run(async (counters) => {
        const nodes = cluster(counters);
        const shortWindow = await nodes.node(probing(600)); // a node not yet rolled
        const hour = await nodes.node(probing(3600)); // the redeployed rule
        const seen: string[] = [];
        try {
          nodes.at('10:00');
          seen.push(await shortWindow.probe(alice)); // the 10-minute window 10:00–10:10
          nodes.at('10:05');
          seen.push(await hour.probe(alice)); // 1 within the hour 10:00–11:00
          nodes.at('10:11');
          await hour.prune(); // the 10-minute window has ended
          nodes.at('10:20');
          seen.push(await hour.probe(alice)); // 2
          nodes.at('10:30');
          seen.push(await hour.probe(alice)); // 3: the threshold
          seen.push(await hour.readOwn(alice));
          expect(await hour.engaged()).toEqual([`actor:rule:${PROBING}`]);
        } finally {
          await nodes.close();
        }
        expect(seen).toEqual(['deny@proposal', 'deny@proposal', 'deny@proposal', 'deny@proposal', 'deny@containment']);
      });
    });

    it("attack: a rule renamed in place to count another event type starts from none of the old type's counts", async () => {
      await run(async (counters) => {
        const nodes = cluster(counters);
        const crossTenant = await nodes.node(probing(3600));
        const denials = await nodes.node(
          containmentRule({ name: PROBING, on: CapabilityDenied, threshold: 3, windowSeconds: 3600 }),
        );
        try {
          nodes.at('10:00');
          await crossTenant.probe(alice);
          nodes.at('10:01');
          await crossTenant.probe(alice);
          nodes.at('10:02');
          expect(await denials.readBobs(alice)).toBe('deny@proposal'); // her first CapabilityDenied on that node
          expect(await denials.readOwn(alice)).toBe('executed');
          expect(await denials.engaged()).toEqual([]);
        } finally {
          await nodes.close();
        }
      });
    });

    it('control: nodes running one config share the count, and the threshold-th event contains the actor', async () => {
      await run(async (counters) => {
        const nodes = cluster(counters);
        const first = await nodes.node(probing(3600));
        const second = await nodes.node(probing(3600));
        try {
          nodes.at('10:00');
          await first.probe(alice);
          nodes.at('10:05');
          await second.probe(alice);
          nodes.at('10:11');
          expect(await second.prune()).toBe(0); // the hour has not ended: nothing of it is pruned
          expect(await first.readOwn(alice)).toBe('executed'); // two events: below the threshold
          nodes.at('10:15');
          expect(await first.probe(alice)).toBe('deny@proposal'); // the third, on the other node
          expect(await second.readOwn(alice)).toBe('deny@containment');
          expect(await first.engaged()).toEqual([`actor:rule:${PROBING}`]);
        } finally {
          await nodes.close();
        }
      });
    });
  });
}
