import { describe, expect, it } from '@jest/globals';
import {
  type ActionContext,
  ActionContextStore,
  EvidenceQuery,
  type ExecutionResult,
  InMemoryContainmentStore,
  ContainmentService,
  VerdictService,
  actorFingerprint,
} from '@verdict/nestjs';
import { VerdictPipeline } from '../../packages/verdict/src/pipeline/verdict-pipeline.js';
import { type Actor, Document, alice, documentsFixture } from '../pipeline/documents.fixture.js';

const actorKey = (actor: Actor) => `customer:${actor.id}`;
const operator = { reason: 'INC-5120: probing', by: 'operator:7', operatorIdentity: 'sso:8812' };

/**
 * The documents domain with kill switches and an actor key: an incident responder lists one actor's
 * attempts with `verdict evidence list --actor <fingerprint>`, which is `EvidenceQuery.list({ actorFingerprint })`.
 */
async function setup() {
  const fixture = documentsFixture();
  const { moduleRef } = await fixture.boot({ actorKey, containment: { store: new InMemoryContainmentStore() } });
  const contexts = moduleRef.get(ActionContextStore);
  const verdict = moduleRef.get(VerdictService);
  const pipeline = moduleRef.get(VerdictPipeline);
  const query = moduleRef.get<EvidenceQuery>(EvidenceQuery);
  const as = <T>(context: ActionContext, run: () => Promise<T>) => contexts.run(context, run);
  const execute = (capability: string, args: unknown, context = alice) =>
    as(context, () => verdict.execute({ capability, arguments: args }));
  const evaluate = (capability: string, args: unknown, context = alice) =>
    as(context, () => verdict.evaluate({ capability, arguments: args }));
  const guard = (capability: string, args: unknown, context = alice) =>
    as(context, () => pipeline.guard({ capability, arguments: args }, async () => 'legacy read'));
  /** Every correlation id the actor's evidence lists, as the CLI's `--actor` filter would show them. */
  const listedFor = async (context: ActionContext) =>
    new Set((await query.list({ actorFingerprint: actorFingerprint(context, actorKey) })).map((r) => r.correlationId));
  return { ...fixture, moduleRef, execute, evaluate, guard, query, listedFor };
}

const outcome = (result: ExecutionResult<unknown>) =>
  result.executed ? 'executed' : `${result.decision.disposition}@${result.decision.stage}`;

describe('actorFingerprint on every record of a proposal', () => {
  it('attributes a proposal refused by a kill switch, on every path, so the responder lists the contained attempts', async () => {
    const { moduleRef, execute, evaluate, guard, query, listedFor } = await setup();
    const containment = moduleRef.get(ContainmentService);
    await containment.engage({ scope: 'actor', subject: 'customer:alice', ...operator });

    const runs = [
      await execute('documents.read', { id: 1 }),
      await evaluate('documents.read', { id: 1 }),
      await guard('documents.read', { id: 1 }),
      await execute('documents.delete_all', {}),
    ];
    expect(runs.map(outcome)).toEqual(Array(4).fill('deny@containment'));
    const expected = actorFingerprint(alice, actorKey);
    for (const run of runs)
      expect((await query.run(run.correlationId)).map((r) => r.actorFingerprint)).toEqual([expected]);
    expect(await listedFor(alice)).toEqual(new Set(runs.map((run) => run.correlationId)));
  });

  it('attributes a capability or tenant switch too', async () => {
    const { moduleRef, execute, listedFor } = await setup();
    const containment = moduleRef.get(ContainmentService);
    await containment.engage({ scope: 'capability', subject: 'documents.read', ...operator });
    const byCapability = await execute('documents.read', { id: 1 });
    await containment.engage({ scope: 'tenant', subject: 'acme', ...operator });
    const byTenant = await execute('documents.latest', {});

    expect([byCapability, byTenant].map(outcome)).toEqual(['deny@containment', 'deny@containment']);
    expect(await listedFor(alice)).toEqual(new Set([byCapability.correlationId, byTenant.correlationId]));
  });

  it('attributes every other step that decides, permits included (control: another actor lists none of them)', async () => {
    const { execute, guard, hooks, revoked, listedFor, query } = await setup();
    const runs: Record<string, ExecutionResult<unknown>> = {};
    runs.unknown = await execute('documents.delete_all', {});
    runs.invalid = await execute('documents.read', { id: 'one' });
    runs.nonCanonical = await execute('documents.rename', { id: 1, title: 'plan \uD800' });
    runs.unresolvable = await execute('documents.read', { id: 99 });
    runs.foreign = await execute('documents.read', { id: 2 });
    hooks.onRefresh = () => new Document(2, 'acme', 'alice', 'bob plan');
    runs.substituted = await execute('documents.read', { id: 1 });
    hooks.onRefresh = () => void revoked.add('alice');
    runs.revoked = await execute('documents.read', { id: 1 });
    revoked.clear();
    hooks.onRefresh = undefined;
    runs.guardedDeny = await guard('documents.read', { id: 2 });
    runs.guarded = await guard('documents.read', { id: 1 });
    runs.executed = await execute('documents.read', { id: 1 });

    expect(Object.fromEntries(Object.entries(runs).map(([name, run]) => [name, outcome(run)]))).toEqual({
      unknown: 'deny@proposal',
      invalid: 'deny@proposal',
      nonCanonical: 'deny@proposal',
      unresolvable: 'deny@proposal',
      foreign: 'deny@proposal',
      substituted: 'deny@target_refresh',
      revoked: 'deny@execution',
      guardedDeny: 'deny@proposal',
      guarded: 'executed',
      executed: 'executed',
    });
    const expected = actorFingerprint(alice, actorKey);
    for (const run of Object.values(runs))
      expect(new Set((await query.run(run.correlationId)).map((r) => r.actorFingerprint))).toEqual(new Set([expected]));
    expect(await listedFor(alice)).toEqual(new Set(Object.values(runs).map((run) => run.correlationId)));
    expect(await listedFor({ actor: { id: 'bob' }, tenant: 'acme' })).toEqual(new Set());
  });
});
