import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { Logger } from '@nestjs/common';
import { EventEmitter2, EventEmitterModule } from '@nestjs/event-emitter';
import {
  type ActionContext,
  ActionContextStore,
  ApprovalService,
  type AuthorizedAction,
  CapabilityDenied,
  ContainmentEngaged,
  ContainmentService,
  InMemoryApprovalReceiptStore,
  InMemoryContainmentStore,
  SecurityEvent,
  ToolLoopDetected,
  VerdictService,
  containmentRule,
  fingerprintString,
} from '@verdict/nestjs';
import { archiveCapability } from '../approvals/archive.fixture.js';
import { type Actor, alice, documentsFixture } from '../pipeline/documents.fixture.js';

const SECRET_TITLE = 'SECRET-TITLE-42';
const support: ActionContext = { actor: { id: 'support' }, tenant: 'acme' };
const aliceIn = (conversationId: string): ActionContext => ({ ...alice, metadata: { conversationId } });

/** A listener registered straight on EventEmitter2: no `@OnEvent` wrapper suppresses what it throws. */
const throwing = () => {
  throw new Error('listener down');
};

/**
 * The documents domain in a real Nest app with `EventEmitterModule`, a loop threshold of 2 (a permitted call repeated
 * in a conversation raises `ToolLoopDetected`) and, with `rule`, kill switches and a rule that contains an actor at
 * their second `CapabilityDenied`.
 */
async function setup(options: { rule?: boolean } = {}) {
  const fixture = documentsFixture();
  const archived: AuthorizedAction[] = [];
  // One instant for the whole test: the rule's 10-minute window cannot roll over between the two denials.
  const now = new Date();
  const { moduleRef } = await fixture.boot({
    clock: () => now,
    capabilities: [archiveCapability(fixture, archived)],
    approvals: new InMemoryApprovalReceiptStore(),
    actorKey: (actor: Actor) => actor.id,
    toolLoopThreshold: 2,
    containment: {
      store: new InMemoryContainmentStore(),
      cacheTtlMs: 0,
      ...(options.rule === true
        ? { rules: [containmentRule({ name: 'denials', on: CapabilityDenied, threshold: 2, windowSeconds: 600 })] }
        : {}),
    },
    imports: [EventEmitterModule.forRoot()],
  });
  const emitter = moduleRef.get(EventEmitter2);
  const verdict = moduleRef.get(VerdictService);
  const contexts = moduleRef.get(ActionContextStore);
  const propose = (capability: string, args: object, context: ActionContext = alice, toolCallId?: string) =>
    contexts.run(context, () => verdict.execute({ capability, arguments: args, toolCallId }));
  return { ...fixture, moduleRef, emitter, propose, archived };
}

let logged: jest.SpiedFunction<Logger['error']>;
beforeEach(() => {
  logged = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
});
afterEach(() => logged.mockRestore());

/** What was logged, as text: the messages and the errors' messages. */
const loggedText = () => JSON.stringify(logged.mock.calls.map(([message, error]) => [message, String(error)]));

describe("a listener that throws never replaces a run's result", () => {
  it('a denied run: the caller gets its deny, the failure is logged by event name; a listener before it gets the event (control)', async () => {
    const { emitter, propose } = await setup();
    const received: SecurityEvent[] = [];
    emitter.on(CapabilityDenied.event, (event: CapabilityDenied) => received.push(event));
    emitter.on(CapabilityDenied.event, throwing);

    const denied = await propose('documents.rename', { id: 2, title: SECRET_TITLE });
    expect(denied).toMatchObject({ executed: false, decision: { disposition: 'deny', stage: 'proposal' } });
    expect(received).toEqual([expect.any(CapabilityDenied)]);
    expect(received[0]).toMatchObject({
      capability: 'documents.rename',
      stage: 'proposal',
      correlationId: denied.correlationId,
      actorFingerprint: fingerprintString('alice'),
      tenantFingerprint: fingerprintString('acme'),
    });
    expect(logged).toHaveBeenCalledWith(expect.stringContaining(CapabilityDenied.event), expect.any(Error));
    expect(loggedText()).toContain('listener down');
    for (const raw of [SECRET_TITLE, 'alice', 'acme']) expect(loggedText()).not.toContain(raw);
  });

  it('a permitted, executed run: the caller gets the executed result, and the operation ran once', async () => {
    const { emitter, propose, executions } = await setup();
    const loops: ToolLoopDetected[] = [];
    emitter.on(ToolLoopDetected.event, (event: ToolLoopDetected) => loops.push(event));
    emitter.on(ToolLoopDetected.event, throwing);

    expect(await propose('documents.read', { id: 1 }, aliceIn('c-1'))).toMatchObject({ executed: true });
    const second = await propose('documents.read', { id: 1 }, aliceIn('c-1'));
    expect(second).toMatchObject({ executed: true, output: { id: 1, title: 'alice plan' } });
    expect(executions).toHaveLength(2);
    expect(loops).toEqual([expect.objectContaining({ correlationId: second.correlationId, repetitions: 2 })]);
    expect(logged).toHaveBeenCalledWith(expect.stringContaining(ToolLoopDetected.event), expect.any(Error));
  });

  it('an async listener whose promise rejects: the result stands, the rejection is logged, none goes unhandled', async () => {
    const { emitter, propose } = await setup();
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      emitter.on(CapabilityDenied.event, async () => {
        throw new Error('async listener down');
      });
      const denied = await propose('documents.rename', { id: 2, title: SECRET_TITLE });
      expect(denied.decision).toMatchObject({ disposition: 'deny', stage: 'proposal' });
      await new Promise((resolve) => setImmediate(resolve));
      expect(logged).toHaveBeenCalledWith(expect.stringContaining(CapabilityDenied.event), expect.any(Error));
      expect(loggedText()).toContain('async listener down');
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it("containment rules still observe the events a throwing listener received, and the rule's engagement stands", async () => {
    const { emitter, propose } = await setup({ rule: true });
    emitter.on(CapabilityDenied.event, throwing);
    emitter.on(ContainmentEngaged.event, throwing);
    for (let denial = 0; denial < 2; denial++)
      expect((await propose('documents.rename', { id: 2, title: 'x' })).decision).toMatchObject({
        disposition: 'deny',
      });
    expect((await propose('documents.read', { id: 1 })).decision).toMatchObject({
      disposition: 'deny',
      stage: 'containment',
    });
    expect(loggedText()).toContain(ContainmentEngaged.event);
  });

  it("an operator's engagement answers as engaged; a contained approver's decision answers contained", async () => {
    const { moduleRef, emitter, propose } = await setup();
    emitter.on(ContainmentEngaged.event, throwing);
    emitter.on(CapabilityDenied.event, throwing);
    const containment = moduleRef.get(ContainmentService);
    expect(
      await containment.engage({ scope: 'actor', subject: 'support', reason: 'INC-1', by: 'operator:1' }),
    ).toMatchObject({ engaged: true });

    expect((await propose('documents.archive', { id: 1 }, alice, 'call_1')).decision.disposition).toBe(
      'require_confirmation',
    );
    const approvals = moduleRef.get(ApprovalService);
    const { receiptId } = (await approvals.challengeForToolCall('call_1', alice))!;
    expect(
      await approvals.approve(receiptId, 'call_1', 'staff:support', { approver: support, requester: alice }),
    ).toEqual({ outcome: 'contained' });
    expect(loggedText()).toContain(ContainmentEngaged.event);
    expect(loggedText()).toContain(CapabilityDenied.event);
  });
});
