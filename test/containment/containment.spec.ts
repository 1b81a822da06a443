import { describe, expect, it } from '@jest/globals';
import { EventEmitter2, EventEmitterModule } from '@nestjs/event-emitter';
import { z } from 'zod';
import {
  type ActionContext,
  ActionContextStore,
  ContainmentEngaged,
  type ContainmentOptions,
  type ContainmentRule,
  CapabilityDenied,
  ContainmentService,
  CrossTenantResourceRequested,
  type DecisionRecord,
  EvidenceWriteFailedError,
  ExecutionTargetPolicy,
  InMemoryContainmentStore,
  InMemoryEvidenceRecorder,
  InMemoryRateLimitStore,
  ModelBudgetExceeded,
  NonCanonicalValueError,
  PublicMessage,
  type RateLimitStore,
  SecurityEvent,
  TargetNotResolvable,
  VerdictConfigurationError,
  VerdictService,
  containmentRule,
  defineCapability,
  fingerprint,
  fingerprintString,
  fromProposal,
  publicAnswer,
} from '@verdict/nestjs';
import { type Actor, Document, alice, bob, documentsFixture } from '../pipeline/documents.fixture.js';

const mallory: ActionContext = { actor: { id: 'mallory' }, tenant: 'acme' };
const gina: ActionContext = { actor: { id: 'gina' }, tenant: 'globex' };
const PROBING = 'cross-tenant-probing';

/**
 * The documents domain with kill switches in memory and one rule: three cross-tenant requests by one
 * actor within ten minutes contain that actor. `documents.peek` resolves any tenant's document (CASL
 * refuses the foreign ones) and takes a free-text `onBehalfOf` the model fills in. `methodKey`: the module's
 * `actorKey` written as a method of its options, reading them through `this`.
 */
async function setup({
  methodKey = false,
  rules = [containmentRule({ name: PROBING, on: CrossTenantResourceRequested, threshold: 3, windowSeconds: 600 })],
  ruleCounters,
  cacheTtlMs,
}: { methodKey?: boolean; rules?: ContainmentRule[]; ruleCounters?: RateLimitStore; cacheTtlMs?: number } = {}) {
  const fixture = documentsFixture();
  fixture.documents.set(4, new Document(4, 'globex', 'gina', 'gina plan'));
  let now = new Date('2026-01-01T10:00:00.000Z');
  const store = new InMemoryContainmentStore();
  const evidence = new InMemoryEvidenceRecorder();
  const peek = defineCapability(
    {
      name: 'documents.peek',
      description: 'Peek at a document',
      action: 'read',
      subject: 'Document',
      arguments: z.object({ id: z.number().int(), onBehalfOf: z.string().optional() }),
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
    evidence,
    clock: () => now,
    ...(methodKey
      ? {
          actorPrefix: 'customer:',
          actorKey(actor: Actor) {
            return (this as unknown as { actorPrefix: string }).actorPrefix + actor.id;
          },
        }
      : { actorKey: (actor: Actor) => `customer:${actor.id}` }),
    tenantOf: (target) => (target instanceof Document ? target.tenant : undefined),
    containment: { store, rules, ruleCounters, cacheTtlMs },
    imports: [EventEmitterModule.forRoot()],
  });
  const engagedEvents: ContainmentEngaged[] = [];
  moduleRef.get(EventEmitter2).on(ContainmentEngaged.event, (event: ContainmentEngaged) => engagedEvents.push(event));
  const verdict = moduleRef.get(VerdictService);
  const contexts = moduleRef.get(ActionContextStore);
  const propose = (context: ActionContext, capability: string, args: object) =>
    contexts.run(context, () => verdict.execute({ capability, arguments: args }));
  /** What each actor's `documents.read` of their own document comes to: `executed` or `<disposition>@<stage>`. */
  const outcome = async (context: ActionContext, id: number, capability = 'documents.read') => {
    const result = await propose(context, capability, { id });
    return result.executed ? 'executed' : `${result.decision.disposition}@${result.decision.stage}`;
  };
  return {
    ...fixture,
    moduleRef,
    store,
    evidence,
    engagedEvents,
    propose,
    outcome,
    containment: moduleRef.get(ContainmentService),
    publicMessage: moduleRef.get<string>(PublicMessage),
    records: () => evidence.decisions(),
    advance: (ms: number) => (now = new Date(now.getTime() + ms)),
  };
}

const operator = { reason: 'INC-4411: refunds abused', by: 'operator:7', operatorIdentity: 'sso:8812' };
const stages = (records: readonly DecisionRecord[]) => records.map((r) => `${r.stage}:${r.disposition}`);

describe('containment', () => {
  describe('step 0', () => {
    it('denies a contained capability before anything else runs, records it, and tells the model only the public message', async () => {
      const { containment, propose, hooks, records, publicMessage, outcome } = await setup();
      await containment.engage({ scope: 'capability', subject: 'documents.read', ...operator });
      let resolved = false;
      hooks.onResolve = () => void (resolved = true);
      const before = records().length;

      const result = await propose(alice, 'documents.read', { id: 'not even valid' });
      expect(result.decision).toMatchObject({ disposition: 'deny', stage: 'containment' });
      expect(resolved).toBe(false);
      expect(stages(records().slice(before))).toEqual(['containment:deny']);
      expect(publicAnswer(result, publicMessage)).toBe(
        JSON.stringify({
          status: 'not_executed',
          capability: 'documents.read',
          decision: 'deny',
          message: 'Not done.',
        }),
      );
      // Other capabilities are untouched.
      expect(await outcome(alice, 1, 'documents.latest')).toBe('executed');
    });

    it('contains one actor, or one tenant, and no one else', async () => {
      const { containment, outcome } = await setup();
      await containment.engage({ scope: 'actor', subject: 'customer:alice', ...operator });
      expect([await outcome(alice, 1), await outcome(bob, 2), await outcome(gina, 4)]).toEqual([
        'deny@containment',
        'executed',
        'executed',
      ]);
      await containment.engage({ scope: 'tenant', subject: 'acme', ...operator });
      expect([await outcome(bob, 2), await outcome(gina, 4)]).toEqual(['deny@containment', 'executed']);
    });

    it('contains an actor keyed by an actorKey written as a method of the options; no one else (control)', async () => {
      const { containment, outcome } = await setup({ methodKey: true });
      expect(await outcome(alice, 1)).toBe('executed');
      await containment.engage({ scope: 'actor', subject: 'customer:alice', ...operator });
      expect([await outcome(alice, 1), await outcome(bob, 2)]).toEqual(['deny@containment', 'executed']);
    });

    it('denies a contained actor at containment even for a capability name the model made up', async () => {
      const { containment, propose } = await setup();
      await containment.engage({ scope: 'actor', subject: 'customer:alice', ...operator });
      expect((await propose(alice, 'documents.delete_all', {})).decision.stage).toBe('containment');
    });

    it('executes again once released', async () => {
      const { containment, outcome } = await setup();
      await containment.engage({ scope: 'capability', subject: 'documents.read', ...operator });
      expect(await outcome(alice, 1)).toBe('deny@containment');
      expect(await containment.release({ scope: 'capability', subject: 'documents.read', ...operator })).toBe(true);
      expect(await outcome(alice, 1)).toBe('executed');
      expect(await containment.release({ scope: 'capability', subject: 'documents.read', ...operator })).toBe(false);
    });

    it('refuses to guess an actor key: an actor that is not plain JSON, without actorKey, is a fault and nothing executes', async () => {
      const fixture = documentsFixture();
      const { moduleRef } = await fixture.boot({ containment: { store: new InMemoryContainmentStore() } });
      class User {
        constructor(readonly id: string) {}
      }
      const run = moduleRef
        .get(ActionContextStore)
        .run({ actor: new User('alice'), tenant: 'acme' }, () =>
          moduleRef.get(VerdictService).execute({ capability: 'documents.read', arguments: { id: 1 } }),
        );
      await expect(run).rejects.toBeInstanceOf(NonCanonicalValueError);
      expect(fixture.executions).toHaveLength(0);
    });

    it('fails closed when the store cannot be read: the error propagates and nothing executes', async () => {
      const { store, propose, executions } = await setup();
      const fault = new Error('containment store is down');
      store.active = async () => {
        throw fault;
      };
      await expect(propose(alice, 'documents.read', { id: 1 })).rejects.toBe(fault);
      expect(executions).toHaveLength(0);
    });
  });

  describe('operators', () => {
    it('records every engagement and release as evidence, with who and why, and fingerprints actor keys', async () => {
      const { containment, records, store, engagedEvents } = await setup();
      const before = records().length;
      await containment.engage({ scope: 'actor', subject: 'customer:alice', ...operator });
      // Already on, engaged again by another operator: nothing recorded.
      await containment.engage({ scope: 'actor', subject: 'customer:alice', ...operator, by: 'operator:8' });
      await containment.release({ scope: 'actor', subject: 'customer:alice', ...operator, reason: 'INC-4411 closed' });
      const fingerprinted = fingerprintString('customer:alice');
      expect(
        records()
          .slice(before)
          .map(({ capability, toolKind, stage, disposition, reason }) => ({
            capability,
            toolKind,
            stage,
            disposition,
            reason,
          })),
      ).toEqual([
        {
          capability: '*',
          toolKind: 'operator',
          stage: 'containment',
          disposition: 'deny',
          reason: `"operator:7" (run by "sso:8812") engaged the actor kill switch for ${fingerprinted}: INC-4411: refunds abused`,
        },
        {
          capability: '*',
          toolKind: 'operator',
          stage: 'containment',
          disposition: 'permit',
          reason: `"operator:7" (run by "sso:8812") released the actor kill switch for ${fingerprinted}: INC-4411 closed`,
        },
      ]);
      expect(engagedEvents).toEqual([
        expect.objectContaining({
          scope: 'actor',
          subject: fingerprinted,
          actorFingerprint: fingerprinted,
          engagedBy: 'operator:7',
        }),
      ]);
      expect(JSON.stringify([records(), await store.active(), engagedEvents])).not.toContain('customer:alice');
    });

    it('refuses an unknown capability, a blank reason or an unknown scope, and changes nothing', async () => {
      const { containment, store, records } = await setup();
      const before = records().length;
      await expect(containment.engage({ scope: 'capability', subject: 'documents.raed', ...operator })).rejects.toThrow(
        /No capability "documents.raed"/,
      );
      await expect(
        containment.engage({ scope: 'actor', subject: 'customer:alice', ...operator, reason: '  ' }),
      ).rejects.toBeInstanceOf(VerdictConfigurationError);
      await expect(
        containment.engage({ scope: 'everyone' as 'actor', subject: 'x', ...operator }),
      ).rejects.toBeInstanceOf(VerdictConfigurationError);
      expect(await store.active()).toEqual([]);
      expect(records().length).toBe(before);
    });
  });

  describe('operators: defects', () => {
    const refunds = { scope: 'capability', subject: 'documents.read' } as const;

    it('attack: a release that read the switch before another operator released it and a third engaged it again leaves the new engagement on, and its evidence says it did not apply', async () => {
      const { containment, store, outcome, records, advance } = await setup();
      await containment.engage({ ...refunds, ...operator });
      const read = store.active.bind(store);
      // Between operator:7's read of the switches and its release, operator:8 releases and operator:9 engages again.
      store.active = async () => {
        const snapshot = await read();
        store.active = read;
        advance(1_000);
        expect(await containment.release({ ...refunds, ...operator, by: 'operator:8', reason: 'INC-4411 fixed' })).toBe(
          true,
        );
        advance(1_000);
        await containment.engage({ ...refunds, ...operator, by: 'operator:9', reason: 'INC-4412: abused again' });
        return snapshot;
      };
      const before = records().length;

      expect(await containment.release({ ...refunds, ...operator, reason: 'INC-4411 fixed (late)' })).toBe(false);
      expect(await containment.list()).toEqual([
        expect.objectContaining({ ...refunds, engagedBy: 'operator:9', reason: 'INC-4412: abused again' }),
      ]);
      expect(await outcome(alice, 1)).toBe('deny@containment');
      const late = records()
        .slice(before)
        .filter((r) => r.reason.includes('INC-4411 fixed (late)'));
      expect(late.map(({ disposition, sequence }) => ({ disposition, sequence }))).toEqual([
        { disposition: 'permit', sequence: 0 },
        { disposition: 'deny', sequence: 1 },
      ]);
      expect(late[1]!.correlationId).toBe(late[0]!.correlationId);
      expect(late[1]!.reason).toContain('did not apply');

      // Control: released by someone who read the current engagement, the capability executes again.
      expect(await containment.release({ ...refunds, ...operator, by: 'operator:9' })).toBe(true);
      expect(await outcome(alice, 1)).toBe('executed');
    });

    it('a release whose store fails is not recorded as done: a second record says it may not have applied', async () => {
      const { containment, store, outcome, records } = await setup();
      await containment.engage({ ...refunds, ...operator });
      const release = store.release.bind(store);
      store.release = () => Promise.reject(new Error('db down on delete'));
      const before = records().length;
      await expect(containment.release({ ...refunds, ...operator, reason: 'INC-4411 fixed' })).rejects.toThrow(
        'db down on delete',
      );
      expect(await outcome(alice, 1)).toBe('deny@containment');
      const attempt = records()
        .slice(before)
        .filter((r) => r.toolKind === 'operator');
      expect(attempt.map(({ disposition, sequence }) => ({ disposition, sequence }))).toEqual([
        { disposition: 'permit', sequence: 0 },
        { disposition: 'deny', sequence: 1 },
      ]);
      expect(attempt[1]!.correlationId).toBe(attempt[0]!.correlationId);
      expect(attempt[1]!.reason).toContain('may not have applied: the store failed');

      // Control: once the store is back, the same release applies, recorded once.
      store.release = release;
      expect(await containment.release({ ...refunds, ...operator, reason: 'INC-4411 fixed' })).toBe(true);
      expect(await outcome(alice, 1)).toBe('executed');
      expect(
        records()
          .slice(before)
          .filter((r) => r.toolKind === 'operator')
          .map(({ disposition }) => disposition),
      ).toEqual(['permit', 'deny', 'permit']);
    });

    it('an engagement whose record failed stays on; repeating the same command records it once evidence is back', async () => {
      const { containment, evidence, outcome, records, engagedEvents } = await setup();
      const engagements = () => records().filter((r) => r.stage === 'containment' && r.toolKind === 'operator');
      const recordDecision = evidence.recordDecision.bind(evidence);
      evidence.recordDecision = async () => {
        throw new Error('evidence store is down');
      };
      const failure = containment.engage({ ...refunds, ...operator });
      await expect(failure).rejects.toBeInstanceOf(EvidenceWriteFailedError);
      // The operator is told what the switch is now, not that an action was stopped.
      await expect(failure).rejects.toThrow('The kill switch is engaged, but its engagement could not be recorded');
      evidence.recordDecision = recordDecision;
      // Fail closed: the switch is on although nothing recorded it.
      expect(await outcome(alice, 1)).toBe('deny@containment');
      expect(engagements()).toEqual([]);

      expect(await containment.engage({ ...refunds, ...operator })).toMatchObject({ engaged: false });
      const [engaged] = (await containment.list()).map((c) => c.engagedAt.toISOString());
      expect(engagements()).toEqual([
        expect.objectContaining({
          disposition: 'deny',
          capability: 'documents.read',
          reason: `"operator:7" (run by "sso:8812") engaged the capability kill switch for documents.read (a repeat of its engagement at ${engaged}): INC-4411: refunds abused`,
        }),
      ]);
      expect(engagedEvents).toEqual([expect.objectContaining({ subject: 'documents.read', engagedBy: 'operator:7' })]);

      // Control: another operator's engagement of the engaged switch changes and records nothing.
      expect(await containment.engage({ ...refunds, ...operator, by: 'operator:8' })).toMatchObject({ engaged: false });
      expect(engagements()).toHaveLength(1);
      expect(engagedEvents).toHaveLength(1);
      // What the CLI asks to tell the two apart.
      const [kept] = await containment.list();
      expect(containment.repeatsEngagement({ ...refunds, ...operator }, kept!)).toBe(true);
      expect(containment.repeatsEngagement({ ...refunds, ...operator, by: 'operator:8' }, kept!)).toBe(false);
    });

    it('contains, and releases, an actor whose key or a tenant whose id is longer than 255 characters: only its fingerprint is stored', async () => {
      const { containment, store, records } = await setup();
      const longKey = `customer:${'7'.repeat(300)}`;
      const longTenant = `tenant-${'x'.repeat(300)}`;
      expect(await containment.engage({ scope: 'actor', subject: longKey, ...operator })).toMatchObject({
        engaged: true,
      });
      expect(await containment.engage({ scope: 'tenant', subject: longTenant, ...operator })).toMatchObject({
        engaged: true,
      });
      expect((await store.active()).map((c) => c.subject)).toEqual([
        fingerprintString(longKey),
        fingerprintString(longTenant),
      ]);
      expect(JSON.stringify(records())).not.toContain(longKey);
      expect(await containment.release({ scope: 'actor', subject: longKey, ...operator })).toBe(true);
      // Control: a capability name is stored as it is, so the column's limit still holds for it.
      await expect(
        containment.engage({ scope: 'capability', subject: `documents.${'x'.repeat(250)}`, ...operator }),
      ).rejects.toBeInstanceOf(VerdictConfigurationError);
    });

    it('releases the switch of a capability no longer registered; still refuses to contain one', async () => {
      const { containment, store } = await setup();
      // Engaged while documents.retired was registered; the application no longer registers it.
      await store.engage({
        scope: 'capability',
        subject: 'documents.retired',
        reason: 'INC-4400',
        engagedBy: 'operator:7',
        operatorIdentity: null,
        engagedAt: new Date('2025-12-31T10:00:00.000Z'),
      });
      expect(await containment.release({ scope: 'capability', subject: 'documents.retired', ...operator })).toBe(true);
      expect(await store.active()).toEqual([]);
      await expect(
        containment.engage({ scope: 'capability', subject: 'documents.retired', ...operator }),
      ).rejects.toThrow(/No capability "documents.retired"/);
      expect(await store.active()).toEqual([]);
    });
  });

  describe('rules', () => {
    it('refuses two rules of one name at boot: they would share one count', async () => {
      const rule = (name: string, threshold: number) =>
        containmentRule({ name, on: CrossTenantResourceRequested, threshold, windowSeconds: 600 });
      const boot = (rules: ReturnType<typeof rule>[]) =>
        documentsFixture().boot({ containment: { store: new InMemoryContainmentStore(), rules } });
      await expect(boot([rule(PROBING, 3), rule(PROBING, 10)])).rejects.toThrow(
        new VerdictConfigurationError(
          `Two containment rules are named "${PROBING}": a rule's name keys its event counts, so give each rule its own name.`,
        ),
      );
      // Control: two names, two counts.
      await expect(boot([rule(PROBING, 3), rule(`${PROBING}-slow`, 10)])).resolves.toBeDefined();
    });

    it('contains the actor whose runs raised the events, never the subject the model named', async () => {
      const { propose, outcome, containment, records, engagedEvents } = await setup();
      // Attack: alice's model probes another tenant's document "on behalf of" bob, naming him everywhere it can.
      for (let i = 0; i < 3; i++)
        expect((await propose(alice, 'documents.peek', { id: 4, onBehalfOf: 'customer:bob' })).executed).toBe(false);

      expect(await containment.list()).toEqual([
        expect.objectContaining({
          scope: 'actor',
          subject: fingerprintString('customer:alice'),
          engagedBy: `rule:${PROBING}`,
        }),
      ]);
      expect([await outcome(alice, 1), await outcome(bob, 2)]).toEqual(['deny@containment', 'executed']);
      expect(engagedEvents.map((e) => [e.scope, e.subject, e.engagedBy])).toEqual([
        ['actor', fingerprintString('customer:alice'), `rule:${PROBING}`],
      ]);
      expect(records().filter((r) => r.toolKind === 'containment_rule')).toEqual([
        expect.objectContaining({
          stage: 'containment',
          disposition: 'deny',
          reason: expect.stringContaining(`3 × CrossTenantResourceRequested within 600 s`),
        }),
      ]);
    });

    it('a rule whose counter fails keeps no other rule from counting the same event: the actor rule still contains', async () => {
      const TENANT_RULE = 'tenant-probing';
      // The tenant rule's counter store is down; the actor rule's works.
      const counters = new InMemoryRateLimitStore();
      const tenantBucket = fingerprint({
        containment_rule: TENANT_RULE,
        scope: 'tenant',
        subject: fingerprintString('acme'),
      });
      const consume = counters.consume.bind(counters);
      counters.consume = (request) =>
        request.bucketFingerprint === tenantBucket ? Promise.reject(new Error('counter store down')) : consume(request);
      const { propose, containment } = await setup({
        rules: [
          containmentRule({
            name: TENANT_RULE,
            on: CrossTenantResourceRequested,
            contain: 'tenant',
            threshold: 10,
            windowSeconds: 600,
          }),
          containmentRule({ name: PROBING, on: CrossTenantResourceRequested, threshold: 3, windowSeconds: 600 }),
        ],
        ruleCounters: counters,
      });
      for (let i = 0; i < 3; i++) await propose(alice, 'documents.peek', { id: 4 });
      expect(await containment.list()).toEqual([
        expect.objectContaining({
          scope: 'actor',
          subject: fingerprintString('customer:alice'),
          engagedBy: `rule:${PROBING}`,
        }),
      ]);
    });

    it('counts each actor apart, within the window: two probes each from two actors, or probes in two windows, contain no one', async () => {
      const { propose, outcome, containment, advance } = await setup();
      for (const context of [alice, mallory, alice, mallory]) await propose(context, 'documents.peek', { id: 4 });
      advance(600_000);
      await propose(alice, 'documents.peek', { id: 4 });
      expect(await containment.list()).toEqual([]);
      expect([await outcome(alice, 1), await outcome(mallory, 1, 'documents.peek')]).toEqual([
        'executed',
        'deny@proposal',
      ]);
    });

    it('ignores events a rule does not listen to', async () => {
      const { propose, containment } = await setup();
      for (let i = 0; i < 5; i++) await propose(alice, 'documents.peek', { id: 2 }); // bob's, same tenant: CapabilityDenied
      expect(await containment.list()).toEqual([]);
    });

    it('cannot be written to contain a capability or anything but the events’ own actor or tenant', () => {
      expect(() =>
        containmentRule({
          name: 'lockdown',
          on: CrossTenantResourceRequested,
          threshold: 1,
          windowSeconds: 60,
          contain: 'capability' as 'actor',
        }),
      ).toThrow(/only the actor or the tenant/);
      expect(() =>
        containmentRule({ name: 'zero', on: CrossTenantResourceRequested, threshold: 0, windowSeconds: 60 }),
      ).toThrow(VerdictConfigurationError);
    });

    it('attack: refuses a rule on an event no run raises: it would never count, so never contain', () => {
      for (const on of [ContainmentEngaged, ModelBudgetExceeded as unknown as typeof CapabilityDenied])
        expect(() => containmentRule({ name: 'dead', on, threshold: 1, windowSeconds: 60 })).toThrow(
          new RegExp(`Containment rule "dead" counts ${on.name} events, which no run raises`),
        );
    });

    it('builds a rule on every security event a run raises (control)', async () => {
      const runEvents = Object.values(await import('@verdict/nestjs')).filter(
        (value): value is typeof CapabilityDenied =>
          typeof value === 'function' && value.prototype instanceof SecurityEvent && value !== ContainmentEngaged,
      );
      const built = runEvents.map((on) => containmentRule({ name: on.name, on, threshold: 1, windowSeconds: 60 }).on);
      expect(built).toEqual(runEvents);
      expect(built).toContain(CapabilityDenied);
    });

    it('attack: refuses a window or threshold past what a rule counter can count, with a typed error', () => {
      const rule = { name: 'long', on: CapabilityDenied, threshold: 2, windowSeconds: 600 };
      for (const bad of [
        { windowSeconds: 10_000_000_000_000 },
        { windowSeconds: 3_155_760_001 },
        { threshold: 2 ** 31 },
      ])
        expect(() => containmentRule({ ...rule, ...bad })).toThrow(VerdictConfigurationError);
      // The paired control: the largest window and threshold a rate limit takes build.
      expect(containmentRule({ ...rule, windowSeconds: 3_155_760_000, threshold: 2_147_483_647 })).toMatchObject({
        windowSeconds: 3_155_760_000,
        threshold: 2_147_483_647,
      });
    });
  });

  describe('configuration', () => {
    /** A rule written as a plain object, as `containmentRule` would build it (its `contain` included). */
    const plainRule = {
      name: PROBING,
      on: CrossTenantResourceRequested,
      threshold: 3,
      windowSeconds: 600,
      contain: 'actor',
    } as const;
    const { contain: _contain, ...withoutContain } = plainRule;
    const store = new InMemoryContainmentStore();
    const noRelease = { active: store.active.bind(store), engage: store.engage.bind(store) };
    const cases: Array<[string, unknown, RegExp]> = [
      [
        'no store (a factory handed `store: undefined`)',
        {},
        /`containment.store` is not a ContainmentStore \(no active, engage, release method\)/,
      ],
      [
        'a store without release',
        { store: noRelease },
        /`containment.store` is not a ContainmentStore \(no release method\)/,
      ],
      ['containment: null', null, /`containment` is not an object/],
      [
        'cacheTtlMs: Infinity (never reads the store again)',
        { store, cacheTtlMs: Infinity },
        /`containment.cacheTtlMs` is Infinity/,
      ],
      ['a negative cacheTtlMs', { store, cacheTtlMs: -1 }, /`containment.cacheTtlMs` is -1/],
      ['cacheTtlMs: NaN', { store, cacheTtlMs: NaN }, /`containment.cacheTtlMs` is NaN/],
      ['cacheTtlMs as a string', { store, cacheTtlMs: '5000' }, /`containment.cacheTtlMs` is 5000/],
      [
        'a plain-object rule with threshold 0',
        { store, rules: [{ ...plainRule, threshold: 0 }] },
        /`containment.rules\[0\]` \(containment rule "cross-tenant-probing"\) needs a threshold that is a positive integer/,
      ],
      [
        'a plain-object rule with no `on`',
        { store, rules: [plainRule, { ...plainRule, name: 'x', on: undefined }] },
        /`containment.rules\[1\]` \(containment rule "x"\) needs `on`/,
      ],
      [
        'a plain-object rule without `contain` (read as the tenant)',
        { store, rules: [withoutContain] },
        /`containment.rules\[0\]`.* may contain only the actor or the tenant/,
      ],
      [
        'a rule that contains a capability',
        { store, rules: [{ ...plainRule, contain: 'capability' }] },
        /`containment.rules\[0\]`.* may contain only the actor or the tenant/,
      ],
      [
        'a plain-object rule with a window of 1e13 seconds',
        { store, rules: [{ ...plainRule, windowSeconds: 1e13 }] },
        /`containment.rules\[0\]`.* needs windowSeconds that is a positive integer, at most 3,155,760,000/,
      ],
      [
        'a plain-object rule on ContainmentEngaged',
        { store, rules: [{ ...plainRule, on: ContainmentEngaged }] },
        /`containment.rules\[0\]`.* counts ContainmentEngaged events, which no run raises/,
      ],
      [
        'a rule that is not an object',
        { store, rules: [PROBING] },
        /`containment.rules\[0\]` is not a containment rule/,
      ],
      ['rules that are not an array', { store, rules: plainRule }, /`containment.rules` is not an array/],
      [
        'ruleCounters without consume',
        { store, ruleCounters: {} },
        /`containment.ruleCounters` is not a RateLimitStore/,
      ],
    ];

    it.each(cases)('attack: refuses %s at boot, naming the option', async (_, containment, message) => {
      const failure: unknown = await documentsFixture()
        .boot({ containment: containment as ContainmentOptions })
        .then(
          () => 'booted',
          (error: unknown) => error,
        );
      expect(failure).toBeInstanceOf(VerdictConfigurationError);
      expect((failure as Error).message).toMatch(message);
    });

    it('boots with a plain-object rule as containmentRule builds it and cacheTtlMs 0, and contains (control)', async () => {
      const { propose, outcome, containment } = await setup({ rules: [plainRule], cacheTtlMs: 0 });
      for (let i = 0; i < 3; i++) await propose(alice, 'documents.peek', { id: 4 });
      expect([await outcome(alice, 1), await outcome(bob, 2)]).toEqual(['deny@containment', 'executed']);
      await containment.engage({ scope: 'capability', subject: 'documents.read', ...operator });
      expect(await outcome(bob, 2)).toBe('deny@containment');
    });
  });
});
