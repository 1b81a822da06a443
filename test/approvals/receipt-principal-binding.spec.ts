import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { type ActionContext, NonCanonicalValueError, VerdictConfigurationError } from '@verdict/nestjs';
import { type ReceiptStoreBackend, receiptStoreBackends } from './receipt-stores.fixture.js';
import { member, sharedInvoiceFixture } from './shared-invoice.fixture.js';

const REFUND = { invoiceId: 7, amountCents: 500 };

/**
 * Hardening #10.3: whatever `bind` returns, an approval binds the actor, the tenant and (when the
 * context names one) the conversation it was asked in. The capability under test binds only the
 * invoice, and every member of the tenant is authorized to refund it.
 */
describe.each(receiptStoreBackends())('receipt binding to who asked [%s]', (_engine, open) => {
  let harness: ReceiptStoreBackend;
  beforeAll(async () => {
    harness = await open();
  });
  afterAll(async () => {
    await harness?.close();
  });
  const setup = (options: { actorKey?: (actor: any) => any } = {}) =>
    sharedInvoiceFixture({ store: harness.store(), ...options });

  it("refuses another actor's resume of the approved tool call with the same arguments: nothing executes, the approval stays unused", async () => {
    const fixture = await setup();
    const call = newToolCallId();
    await fixture.propose(member('ana'), call, REFUND);
    const challenge = await fixture.approve(call, member('ana'));

    const stolen = await fixture.propose(member('ben'), call, REFUND, true);

    expect(stolen).toMatchObject({
      executed: false,
      decision: { disposition: 'require_confirmation', stage: 'approval' },
    });
    expect(fixture.refunded).toEqual([]);
    expect((await fixture.approvals.challengeForToolCall(call, member('ben')))?.receiptId).not.toBe(
      challenge.receiptId,
    );
    await fixture.close();
  });

  it("executes the approving actor's own resume once (the control)", async () => {
    const fixture = await setup();
    const call = newToolCallId();
    await fixture.propose(member('ana'), call, REFUND);
    await fixture.approve(call, member('ana'));

    const resumed = await fixture.propose(member('ana'), call, REFUND, true);

    expect(resumed).toMatchObject({ executed: true, output: 'refunded 500' });
    expect(fixture.refunded).toEqual([{ by: { id: 'ana' }, invoice: 7, amountCents: 500 }]);
    await fixture.close();
  });

  it('refuses the same actor in another tenant, where the invoice has the same id and version', async () => {
    const fixture = await setup();
    const call = newToolCallId();
    await fixture.propose(member('ana', 'acme'), call, REFUND);
    await fixture.approve(call, member('ana', 'acme'));

    const elsewhere = await fixture.propose(member('ana', 'globex'), call, REFUND, true);

    expect(elsewhere).toMatchObject({ executed: false, decision: { disposition: 'require_confirmation' } });
    expect(fixture.refunded).toEqual([]);
    await fixture.close();
  });

  it('refuses the same actor resuming in another conversation; in the conversation it was approved in, it executes', async () => {
    const fixture = await setup();
    const call = newToolCallId();
    await fixture.propose(member('ana', 'acme', 'thread-a'), call, REFUND);
    await fixture.approve(call, member('ana', 'acme', 'thread-a'));

    const otherThread = await fixture.propose(member('ana', 'acme', 'thread-b'), call, REFUND, true);
    expect(otherThread).toMatchObject({ executed: false, decision: { disposition: 'require_confirmation' } });
    expect(fixture.refunded).toEqual([]);

    const sameThread = await fixture.propose(member('ana', 'acme', 'thread-a'), call, REFUND, true);
    expect(sameThread).toMatchObject({ executed: true });
    expect(fixture.refunded).toHaveLength(1);
    await fixture.close();
  });

  it('binds what actorKey picks: two actor objects with the same key share the approval', async () => {
    const fixture = await setup({ actorKey: (actor: { id: string }) => actor.id });
    const call = newToolCallId();
    await fixture.propose({ actor: { id: 'ana', session: 'laptop' }, tenant: 'acme' }, call, REFUND);
    await fixture.approve(call, { actor: { id: 'ana', session: 'phone' }, tenant: 'acme' });

    const resumed = await fixture.propose(
      { actor: { id: 'ana', session: 'phone' }, tenant: 'acme' },
      call,
      REFUND,
      true,
    );

    expect(resumed).toMatchObject({ executed: true });
    await fixture.close();
  });

  it('fails with NonCanonicalValueError naming the path when the actor is not plain JSON; nothing is issued or executed', async () => {
    const fixture = await setup();
    const call = newToolCallId();
    const actor = { id: 'ana', signedInAt: new Date('2026-03-01T08:00:00.000Z') };

    await expect(fixture.propose({ actor, tenant: 'acme' }, call, REFUND)).rejects.toThrow(NonCanonicalValueError);
    await expect(fixture.propose({ actor, tenant: 'acme' }, call, REFUND)).rejects.toThrow(/\$\.actor\.signedInAt/);
    expect(await fixture.approvals.challengeForToolCall(call, { actor: { id: 'ana' }, tenant: 'acme' })).toBeNull();
    expect(fixture.refunded).toEqual([]);
    await fixture.close();
  });

  // Review of #10.3/#10.4, F1: lookups are scoped to who asked in which conversation, never by tool-call id alone.
  it("does not show another tenant's actor the pending challenge of a colliding tool-call id, nor list it", async () => {
    const fixture = await setup();
    const call = newToolCallId();
    const [ana, ben] = [member(newActorId('ana'), 'acme', 'thread-a'), member(newActorId('ben'), 'globex', 'thread-b')];
    await fixture.propose(ana, call, REFUND);

    expect(await fixture.approvals.challengeForToolCall(call, ben)).toBeNull();
    expect(await fixture.approvals.pending([call], ben)).toEqual([]);
    expect(
      await fixture.approvals.challengeForToolCall(call, { ...ana, metadata: { conversationId: 'thread-b' } }),
    ).toBeNull();
    await fixture.close();
  });

  it('shows the requester their own pending challenge, with principal and conversation fingerprints only (the control)', async () => {
    const fixture = await setup();
    const call = newToolCallId();
    const ana = member(newActorId('ana'), 'acme', 'thread-a');
    const proposed = await fixture.propose(ana, call, REFUND);

    const challenge = await fixture.approvals.challengeForToolCall(call, ana);
    expect(challenge?.receiptId).toBe(!proposed.executed && proposed.challenge?.receiptId);
    expect(challenge).toMatchObject({
      principalFingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
      conversationFingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect(JSON.stringify(challenge)).not.toContain('thread-a');
    expect(JSON.stringify(challenge)).not.toContain(ana.actor.id);
    expect(await fixture.approvals.pending([call], ana)).toEqual([
      {
        toolCallId: call,
        capability: 'invoices.refund',
        reason: 'Refunds move money.',
        description: 'Refund on invoice 7',
        expiresAt: challenge!.expiresAt,
        provenance: null,
      },
    ]);
    await fixture.close();
  });

  it("cannot reject another actor's receipt through a colliding tool-call id: the owner approves and her resume executes", async () => {
    const fixture = await setup();
    const call = newToolCallId();
    const [ana, ben] = [member(newActorId('ana'), 'acme', 'thread-a'), member(newActorId('ben'), 'globex', 'thread-b')];
    await fixture.propose(ana, call, REFUND);

    const seenByBen = await fixture.approvals.challengeForToolCall(call, ben);
    if (seenByBen !== null) await fixture.approvals.reject(seenByBen.receiptId, call, 'member:ben');

    await fixture.approve(call, ana);
    expect(await fixture.propose(ana, call, REFUND, true)).toMatchObject({ executed: true, output: 'refunded 500' });
    await fixture.close();
  });

  it('keeps colliding tool-call ids of two actors approvable, each by its own requester', async () => {
    const fixture = await setup();
    const call = newToolCallId();
    const [ana, ben] = [member(newActorId('ana'), 'acme', 'thread-a'), member(newActorId('ben'), 'globex', 'thread-b')];
    await fixture.propose(ana, call, REFUND);
    await fixture.propose(ben, call, REFUND);

    const [forAna, forBen] = [
      await fixture.approvals.challengeForToolCall(call, ana),
      await fixture.approvals.challengeForToolCall(call, ben),
    ];
    expect(forAna).not.toBeNull();
    expect(forBen).not.toBeNull();
    expect(forAna!.receiptId).not.toBe(forBen!.receiptId);
    await fixture.approve(call, ben, 'member:ben');
    expect(await fixture.propose(ben, call, REFUND, true)).toMatchObject({ executed: true });
    expect(await fixture.propose(ana, call, REFUND, true)).toMatchObject({
      executed: false,
      decision: { disposition: 'require_confirmation' },
    });
    await fixture.close();
  });

  it('refuses an unscoped pending() listing with VerdictConfigurationError (it cannot tell whose calls it would list)', async () => {
    const fixture = await setup();
    // An untyped caller: the type requires the requester (test/types/capability-types.types.spec.ts).
    // @ts-expect-error the requester is required
    await expect(fixture.approvals.pending([newToolCallId()])).rejects.toThrow(VerdictConfigurationError);
    await fixture.close();
  });

  // F2: an actor key that names nobody would merge every actor into one principal.
  it.each([
    ['null', () => null],
    ['undefined', () => undefined],
    ["''", () => ''],
  ])(
    'fails with VerdictConfigurationError when actorKey returns %s; nothing is issued or executed',
    async (_label, actorKey) => {
      const fixture = await setup({ actorKey });
      const call = newToolCallId();

      await expect(fixture.propose(member('ana'), call, REFUND)).rejects.toThrow(VerdictConfigurationError);
      await expect(fixture.propose(member('ana'), call, REFUND)).rejects.toThrow(/actorKey/);
      expect(fixture.refunded).toEqual([]);
      await fixture.close();
    },
  );

  it("refuses ben's resume of ana's approval under an actorKey that reads a missing field: the call fails, nothing executes", async () => {
    const fixture = await setup({ actorKey: (actor: { userId?: string }) => actor.userId ?? null });
    const call = newToolCallId();

    await expect(fixture.propose(member('ana'), call, REFUND)).rejects.toThrow(VerdictConfigurationError);
    await expect(fixture.propose(member('ben'), call, REFUND, true)).rejects.toThrow(VerdictConfigurationError);
    expect(fixture.refunded).toEqual([]);
    await fixture.close();
  });

  // F3: a conversation id is bound whatever JSON scalar it is.
  it('binds numeric conversation ids: an approval in conversation 5 does not execute in conversation 6 (nor in "5"); in 5 it does', async () => {
    const fixture = await setup();
    const call = newToolCallId();
    const id = newActorId('ana');
    const inConversation = (conversationId: unknown): ActionContext => ({
      actor: { id },
      tenant: 'acme',
      metadata: { conversationId },
    });
    await fixture.propose(inConversation(5), call, REFUND);
    await fixture.approve(call, inConversation(5));

    expect(await fixture.propose(inConversation(6), call, REFUND, true)).toMatchObject({
      executed: false,
      decision: { disposition: 'require_confirmation' },
    });
    expect(await fixture.propose(inConversation('5'), call, REFUND, true)).toMatchObject({
      executed: false,
      decision: { disposition: 'require_confirmation' },
    });
    expect(fixture.refunded).toEqual([]);
    expect(await fixture.propose(inConversation(5), call, REFUND, true)).toMatchObject({ executed: true });
    await fixture.close();
  });

  it.each([
    ['an object', { id: 5 }],
    ['a boolean', true],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['an empty string', ''],
  ])(
    'fails with VerdictConfigurationError for a conversation id that is %s; nothing is issued or executed',
    async (_label, conversationId) => {
      const fixture = await setup();
      const call = newToolCallId();
      const context: ActionContext = { actor: { id: 'ana' }, tenant: 'acme', metadata: { conversationId } };

      await expect(fixture.propose(context, call, REFUND)).rejects.toThrow(VerdictConfigurationError);
      await expect(fixture.propose(context, call, REFUND)).rejects.toThrow(/conversationId/);
      expect(await fixture.approvals.challengeForToolCall(call, member('ana'))).toBeNull();
      expect(fixture.refunded).toEqual([]);
      await fixture.close();
    },
  );

  it('fails the same way when a requester with that conversation id looks up a pending receipt: a wiring fault, never "nothing pending"', async () => {
    const fixture = await setup();
    const call = newToolCallId();
    const ana = member(newActorId('ana'));
    expect(await fixture.propose(ana, call, REFUND)).toMatchObject({
      decision: { disposition: 'require_confirmation' },
    });
    const malformed: ActionContext = { ...ana, metadata: { conversationId: { id: 'conv-3' } } };
    await expect(fixture.approvals.challengeForToolCall(call, malformed)).rejects.toThrow(VerdictConfigurationError);
    await expect(fixture.approvals.pending([call], malformed)).rejects.toThrow(/conversationId/);
    // Control: the requester's own context finds the receipt; one whose actor the (default) key names nobody did not
    // ask for it, and is answered so.
    expect(await fixture.approvals.challengeForToolCall(call, ana)).toMatchObject({ toolCallId: call });
    const nobody = { ...ana, actor: '  ' } as unknown as ActionContext;
    expect(await fixture.approvals.challengeForToolCall(call, nobody)).toBeNull();
    await fixture.close();
  });
});

/** Tool calls of their own per test: the database stores are shared by the tests of an engine. */
function newToolCallId(): string {
  return `call_${randomBytes(8).toString('hex')}`;
}

/** Actors of their own, too, where a test leaves receipts pending (the caps count them). */
function newActorId(name: string): string {
  return `${name}-${randomBytes(4).toString('hex')}`;
}
