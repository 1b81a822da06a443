import { describe, expect, it } from '@jest/globals';
import { EventEmitter2, EventEmitterModule } from '@nestjs/event-emitter';
import { z } from 'zod';
import {
  type ActionContext,
  ActionContextStore,
  ApprovalArgumentsChanged,
  ApprovalReplayDetected,
  ApprovalService,
  type AuthorizedAction,
  CapabilityDenied,
  CrossTenantResourceRequested,
  DuplicateExecutionRefused,
  ExecutionRateExceeded,
  ExecutionTargetPolicy,
  ForbiddenStateRefused,
  InMemoryApprovalReceiptStore,
  InMemoryEvidenceRecorder,
  InMemoryExecutionClaimStore,
  InMemoryRateLimitStore,
  InMemoryTrajectoryStore,
  ResourceSubstitutionDetected,
  SecurityEvent,
  TargetNotResolvable,
  ToolLoopDetected,
  TrajectoryScope,
  VerdictService,
  atMostOnce,
  defineCapability,
  fingerprint,
  fingerprintString,
  fixedWindow,
  forbidStates,
  fromProposal,
} from '@verdict/nestjs';
import { archiveCapability } from '../approvals/archive.fixture.js';
import { type Actor, Document, alice, bob, documentsFixture } from '../pipeline/documents.fixture.js';

const ALICE = fingerprintString('alice');
const ACME = fingerprintString('acme');
const NOW = new Date('2026-01-01T10:00:00.000Z');
const SECRET_TITLE = 'SECRET-TITLE-42';

/** Alice in a conversation of her own. */
const aliceIn = (conversationId: string): ActionContext => ({ ...alice, metadata: { conversationId } });

/**
 * The documents domain with one capability per gate, every store in memory, `EventEmitterModule`
 * imported and every `verdict.*` event collected as it is emitted.
 */
async function setup(
  options: { tenantOf?: false | ((target: any) => string | undefined); toolLoopThreshold?: number } = {},
) {
  const fixture = documentsFixture();
  const byId = fromProposal<{ id: number }, Document>(({ arguments: args, context }) =>
    fixture.load(context.tenant, args.id),
  );
  const common = { action: 'read', subject: 'Document', executionTarget: fixture.refreshPolicy } as const;
  const capabilities = [
    // Resolves any tenant's document, as an unscoped query would: CASL is what refuses another tenant's.
    defineCapability(
      {
        name: 'documents.peek',
        description: 'Peek at any document',
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
    ),
    // A `findOne` that found nothing answers null: no target resolved (docs/architecture.md, step 2).
    defineCapability(
      {
        name: 'documents.find',
        description: 'Find a document',
        action: 'read',
        subject: 'Document',
        arguments: z.object({ id: z.number().int() }),
        resolveTarget: fromProposal<{ id: number }, Document | null>(
          ({ arguments: args }) => fixture.documents.get(args.id) ?? null,
        ),
        executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot<Document | null>({
          name: 'document-id',
          identity: (doc) => doc?.id ?? null,
        }),
      },
      (action) => action.target?.title,
    ),
    defineCapability(
      {
        ...common,
        name: 'documents.publish',
        description: 'Publish a document',
        arguments: z.object({ id: z.number().int(), title: z.string().optional() }),
        resolveTarget: byId,
        atMostOnce: atMostOnce<{ id: number }, Document>({
          name: 'publish-document',
          key: (_envelope, doc) => ({ tenant: doc.tenant, doc: doc.id }),
        }),
      },
      () => 'published',
    ),
    defineCapability(
      {
        ...common,
        name: 'documents.ping',
        description: 'Ping a document owner',
        arguments: z.object({ id: z.number().int() }),
        resolveTarget: byId,
        rateLimit: fixedWindow({
          name: 'one-ping',
          limit: 1,
          reason: 'one ping a minute',
          windowSeconds: 60,
          key: ({ context }) => ({ actor: (context.actor as Actor).id }),
        }),
      },
      () => 'pinged',
    ),
    defineCapability(
      {
        ...common,
        name: 'documents.copy',
        description: 'Copy a document out',
        arguments: z.object({ id: z.number().int() }),
        resolveTarget: byId,
        forbidStates: forbidStates(
          {
            initial: { copies: 0 },
            transitions: [{ when: { effect: 'copy' }, add: { copies: 1 } }],
            forbidden: [{ id: 'second_copy', all: [{ field: 'copies', greater_than: 1 }] }],
          },
          () => ({ effect: 'copy', resource: 'document' }),
          { scope: TrajectoryScope.conversation() },
        ),
      },
      () => 'copied',
    ),
    archiveCapability(fixture, [] as AuthorizedAction[]),
  ];
  const evidence = new InMemoryEvidenceRecorder();
  const { moduleRef } = await fixture.boot({
    evidence,
    capabilities,
    executionClaims: new InMemoryExecutionClaimStore(),
    rateLimits: new InMemoryRateLimitStore(),
    approvals: new InMemoryApprovalReceiptStore(),
    trajectories: new InMemoryTrajectoryStore(),
    clock: () => NOW,
    actorKey: (actor: Actor) => actor.id,
    ...(options.tenantOf === false
      ? {}
      : { tenantOf: options.tenantOf ?? ((target) => (target instanceof Document ? target.tenant : undefined)) }),
    ...(options.toolLoopThreshold === undefined ? {} : { toolLoopThreshold: options.toolLoopThreshold }),
    imports: [EventEmitterModule.forRoot({ wildcard: true })],
  });
  const events: Array<{ name: string; event: SecurityEvent }> = [];
  moduleRef.get(EventEmitter2).on('verdict.*', function (this: { event: string }, event: SecurityEvent) {
    events.push({ name: this.event, event });
  });
  const verdict = moduleRef.get(VerdictService);
  const contexts = moduleRef.get(ActionContextStore);
  const propose = (capability: string, args: object, context = alice, toolCallId?: string, explicitApproval = false) =>
    contexts.run(context, () => verdict.execute({ capability, arguments: args, toolCallId }, { explicitApproval }));
  return { ...fixture, moduleRef, evidence, events, propose, approvals: moduleRef.get(ApprovalService) };
}

/** The facts every pipeline event carries, for alice in acme. */
const aliceFacts = (capability: string, stage: string) => ({
  capability,
  stage,
  actorFingerprint: ALICE,
  tenantFingerprint: ACME,
  occurredAt: NOW,
});

describe('security events', () => {
  it('CapabilityDenied: a CASL refusal raises it with fingerprints and facts only; a permitted call raises nothing', async () => {
    const { propose, events } = await setup();
    expect((await propose('documents.read', { id: 1 })).executed).toBe(true);
    expect(events).toEqual([]);

    const denied = await propose('documents.rename', { id: 2, title: SECRET_TITLE }, alice, 'call_RAW_7');
    expect(denied.executed).toBe(false);
    expect(events).toEqual([{ name: CapabilityDenied.event, event: expect.any(CapabilityDenied) }]);
    expect(events[0]!.event).toEqual({
      ...aliceFacts('documents.rename', 'proposal'),
      correlationId: denied.correlationId,
    });
    const serialized = JSON.stringify(events);
    for (const raw of [SECRET_TITLE, 'call_RAW_7', '"alice"', '"acme"', 'bob plan'])
      expect(serialized).not.toContain(raw);
  });

  it('CapabilityDenied: invalid arguments and a model-invented capability name are named by stage and fingerprint, never by text', async () => {
    const { propose, events } = await setup();
    await propose('documents.read', { id: 'DROP TABLE documents' });
    await propose('documents.delete_everything', {});
    expect(events.map(({ event }) => [event.constructor.name, event.capability, event.stage])).toEqual([
      ['CapabilityDenied', 'documents.read', 'proposal'],
      ['CapabilityDenied', `unknown:${fingerprintString('documents.delete_everything')}`, 'proposal'],
    ]);
    expect(JSON.stringify(events)).not.toMatch(/DROP TABLE|delete_everything/);
  });

  it("CrossTenantResourceRequested: CASL's deny of another tenant's target raises it; another owner in the same tenant is only CapabilityDenied", async () => {
    const { propose, events } = await setup();
    const foreign = await propose('documents.peek', { id: 3 }); // globex's document, alice owns it there
    const colleague = await propose('documents.peek', { id: 2 }); // bob's document in acme
    expect([foreign.decision.disposition, colleague.decision.disposition]).toEqual(['deny', 'deny']);
    expect(events.map(({ name }) => name)).toEqual([CrossTenantResourceRequested.event, CapabilityDenied.event]);
    expect(events[0]!.event).toEqual({
      ...aliceFacts('documents.peek', 'proposal'),
      correlationId: foreign.correlationId,
    });
    expect(JSON.stringify(events)).not.toContain('globex');
  });

  it('CrossTenantResourceRequested: without a tenantOf hook Verdict cannot tell, and the deny stays a plain CapabilityDenied', async () => {
    const { propose, events } = await setup({ tenantOf: false });
    expect((await propose('documents.peek', { id: 3 })).decision.disposition).toBe('deny');
    expect(events.map(({ name }) => name)).toEqual([CapabilityDenied.event]);
  });

  it('CrossTenantResourceRequested: a resolver that found no target (null) is the recorded deny, even with a tenantOf that reads the target unguarded (attack)', async () => {
    const { propose, events, evidence } = await setup({ tenantOf: (target) => target.tenant });
    const missing = await propose('documents.find', { id: 404 });
    expect(missing).toMatchObject({
      executed: false,
      decision: { disposition: 'deny', stage: 'proposal', reason: 'target is not an object' },
    });
    expect(evidence.decisions().map(({ reason }) => reason)).toEqual(['target is not an object']);
    expect(events.map(({ name }) => name)).toEqual([CapabilityDenied.event]); // no target, so no foreign one
  });

  it('CrossTenantResourceRequested: the same unguarded tenantOf still marks a real target of another tenant; one that throws on it is the application fault (control)', async () => {
    const { propose, events } = await setup({ tenantOf: (target) => target.tenant });
    expect((await propose('documents.find', { id: 3 })).decision.disposition).toBe('deny'); // globex's document
    expect(events.map(({ name }) => name)).toEqual([CrossTenantResourceRequested.event]);

    const faulty = await setup({
      tenantOf: () => {
        throw new RangeError('tenant lookup failed');
      },
    });
    await expect(faulty.propose('documents.find', { id: 3 })).rejects.toThrow('tenant lookup failed');
    expect(faulty.evidence.decisions()).toEqual([]); // not relabelled as a deny
  });

  it('ResourceSubstitutionDetected: a refresh that returns another resource raises it at target_refresh', async () => {
    const { propose, events, hooks } = await setup();
    hooks.onRefresh = () => new Document(2, 'acme', 'alice', 'swapped');
    const result = await propose('documents.read', { id: 1 });
    expect(result.decision).toMatchObject({ disposition: 'deny', stage: 'target_refresh' });
    expect(events).toEqual([
      { name: ResourceSubstitutionDetected.event, event: expect.any(ResourceSubstitutionDetected) },
    ]);
    expect(events[0]!.event).toMatchObject(aliceFacts('documents.read', 'target_refresh'));
  });

  it('ApprovalArgumentsChanged and ApprovalReplayDetected: changed arguments after approval, then a replay of the spent approval', async () => {
    const { propose, events, approvals } = await setup();
    const asked = await propose('documents.archive', { id: 1 }, alice, 'call_1');
    expect(asked.decision.disposition).toBe('require_confirmation');
    expect(events).toEqual([]); // a first confirmation request is no security event
    const challenge = await approvals.challengeForToolCall('call_1');
    await approvals.approve(challenge!.receiptId, 'call_1', 'customer:alice');

    const changed = await propose('documents.archive', { id: 1, note: 'and the backups' }, alice, 'call_1', true);
    expect(changed).toMatchObject({ executed: false, decision: { disposition: 'require_confirmation' } });
    expect(events.map(({ name }) => name)).toEqual([ApprovalArgumentsChanged.event]);

    expect((await propose('documents.archive', { id: 1 }, alice, 'call_1', true)).executed).toBe(true);
    const replay = await propose('documents.archive', { id: 1 }, alice, 'call_1', true);
    expect(replay.decision).toMatchObject({ disposition: 'deny', stage: 'approval' });
    expect(events.map(({ name }) => name)).toEqual([ApprovalArgumentsChanged.event, ApprovalReplayDetected.event]);
    expect(events[1]!.event).toEqual({
      ...aliceFacts('documents.archive', 'approval'),
      correlationId: replay.correlationId,
    });
    expect(JSON.stringify(events)).not.toMatch(/call_1|rcpt_|backups/);
  });

  it('ApprovalArgumentsChanged: changed arguments under a receipt still pending raise it too (throttled, nothing issued); the same arguments again raise nothing', async () => {
    const { propose, events } = await setup();
    expect((await propose('documents.archive', { id: 1 }, alice, 'call_1')).decision.disposition).toBe(
      'require_confirmation',
    );
    expect((await propose('documents.archive', { id: 1 }, alice, 'call_1')).decision.disposition).toBe(
      'require_confirmation',
    );
    expect(events).toEqual([]);
    const changed = await propose('documents.archive', { id: 1, note: 'and the backups' }, alice, 'call_1', true);
    expect(changed).toMatchObject({ executed: false, decision: { disposition: 'throttle', stage: 'approval' } });
    expect(events.map(({ name }) => name)).toEqual([ApprovalArgumentsChanged.event]);
    expect(JSON.stringify(events)).not.toMatch(/call_1|rcpt_|backups/);
  });

  it("ApprovalArgumentsChanged: another principal's receipt, or one of another conversation, under a reused tool-call id is no changed approval (attack)", async () => {
    const { propose, events, approvals } = await setup();
    // bob asks first under call_0; alice's first proposal reuses the id (providers reuse them; a caller may choose it).
    expect((await propose('documents.archive', { id: 2 }, bob, 'call_0')).decision.disposition).toBe(
      'require_confirmation',
    );
    const alices = await propose('documents.archive', { id: 1 }, alice, 'call_0');
    expect(alices.decision).toMatchObject({ disposition: 'require_confirmation', stage: 'approval' });
    // The same actor in two conversations: the second's first proposal is not a change of the first's.
    await propose('documents.archive', { id: 1 }, aliceIn('c-1'), 'call_7');
    await propose('documents.archive', { id: 1, note: 'and the backups' }, aliceIn('c-2'), 'call_7');
    expect(events).toEqual([]);
    // Control: alice herself changing what was approved in c-1 is a changed approval, bob's receipt beside it or not.
    const challenge = await approvals.challengeForToolCall('call_7', aliceIn('c-1'));
    await approvals.approve(challenge!.receiptId, 'call_7', 'customer:alice');
    await propose('documents.archive', { id: 1, note: 'and the backups' }, aliceIn('c-1'), 'call_7', true);
    expect(events.map(({ name }) => name)).toEqual([ApprovalArgumentsChanged.event]);
  });

  it('ExecutionRateExceeded: the call over the limit raises it; the call within it raises nothing', async () => {
    const { propose, events } = await setup();
    expect((await propose('documents.ping', { id: 1 })).executed).toBe(true);
    expect((await propose('documents.ping', { id: 1 })).decision).toMatchObject({ disposition: 'throttle' });
    expect(events.map(({ name, event }) => [name, event.stage])).toEqual([[ExecutionRateExceeded.event, 'rate_limit']]);
  });

  it('DuplicateExecutionRefused: a redelivery of an executed operation raises it at execution_claim', async () => {
    const { propose, events } = await setup();
    expect((await propose('documents.publish', { id: 1 }, alice, 'call_a')).executed).toBe(true);
    expect((await propose('documents.publish', { id: 1, title: SECRET_TITLE }, alice, 'call_b')).executed).toBe(false);
    expect(events.map(({ name, event }) => [name, event.stage])).toEqual([
      [DuplicateExecutionRefused.event, 'execution_claim'],
    ]);
    expect(JSON.stringify(events)).not.toContain(SECRET_TITLE);
  });

  it('ForbiddenStateRefused: the call that would reach a forbidden state raises it; the allowed one does not', async () => {
    const { propose, events } = await setup();
    expect((await propose('documents.copy', { id: 1 }, aliceIn('c-1'))).executed).toBe(true);
    const refused = await propose('documents.copy', { id: 1 }, aliceIn('c-1'));
    expect(refused.decision).toMatchObject({ disposition: 'deny', stage: 'execution' });
    expect(events).toEqual([{ name: ForbiddenStateRefused.event, event: expect.any(ForbiddenStateRefused) }]);
    expect(events[0]!.event).toMatchObject(aliceFacts('documents.copy', 'execution'));
  });

  it('ToolLoopDetected: the same proposal a third time in one conversation, whatever was decided; other arguments or conversations count apart', async () => {
    const { propose, events } = await setup();
    for (const [id, conversation] of [
      [1, 'c-1'],
      [1, 'c-1'],
      [2, 'c-1'], // other arguments
      [1, 'c-2'], // another conversation
      [1, 'c-1'],
    ] as const)
      await propose('documents.read', { id }, aliceIn(conversation));
    const loops = events.filter(({ name }) => name === ToolLoopDetected.event);
    expect(loops).toHaveLength(1);
    expect(loops[0]!.event).toMatchObject({
      ...aliceFacts('documents.read', 'execution'),
      argumentsFingerprint: fingerprint({ id: 1 }),
      conversationFingerprint: fingerprint('c-1'),
      repetitions: 3,
    });
    expect(JSON.stringify(loops)).not.toContain('"c-1"');
  });

  it('ToolLoopDetected: the threshold is configurable, and a proposal outside any conversation is not counted', async () => {
    const { propose, events } = await setup({ toolLoopThreshold: 2 });
    await propose('documents.read', { id: 1 });
    await propose('documents.read', { id: 1 });
    expect(events).toEqual([]);
    await propose('documents.read', { id: 1 }, aliceIn('c-9'));
    await propose('documents.read', { id: 1 }, aliceIn('c-9'));
    expect(events.map(({ event }) => (event as ToolLoopDetected).repetitions)).toEqual([2]);
  });

  it('raises nothing for a dry-run evaluation', async () => {
    const { moduleRef, events } = await setup();
    await moduleRef
      .get(ActionContextStore)
      .run(alice, () =>
        moduleRef.get(VerdictService).evaluate({ capability: 'documents.rename', arguments: { id: 2, title: 'x' } }),
      );
    expect(events).toEqual([]);
  });
});
