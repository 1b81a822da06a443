import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { Test } from '@nestjs/testing';
import { createMongoAbility } from '@casl/ability';
import { z } from 'zod';
import {
  type ActionContext,
  ActionContextStore,
  ApprovalService,
  ExecutionTargetPolicy,
  type JsonValue,
  VerdictModule,
  VerdictService,
  defineCapability,
  fromProposal,
  requiresConfirmation,
  VerdictConfigurationError,
} from '@verdict/nestjs';
import { type ReceiptStoreBackend, receiptStoreBackends } from './receipt-stores.fixture.js';

interface Row {
  readonly tenant: string | null;
  readonly id: number;
}
type Key = ((actor: { id: string }) => JsonValue) | undefined;

const byId: Key = (actor) => actor.id;

/**
 * A key that looks the actor up in a customer directory, which can be down: then the key throws `outage` (a lookup's
 * error, or a Verdict error class the application throws itself: who threw decides, not what, ADR 0208).
 */
function directoryKey(outage: Error) {
  const directory = { up: true };
  const key: Key = (actor) => {
    if (!directory.up) throw outage;
    return `customer:${actor.id}`;
  };
  return { key, directory };
}

/** A capability that asks for confirmation, with its own `actorKey` when given (else the actor itself). */
const confirmed = (name: string, actorKey: Key, ran: string[]) =>
  defineCapability<{ id: number }, Row, string>(
    {
      name,
      description: name,
      action: 'act',
      subject: 'Thing',
      arguments: z.object({ id: z.number().int() }),
      resolveTarget: fromProposal(({ arguments: a, context }): Row => ({ tenant: context.tenant, id: a.id })),
      executionTarget: ExecutionTargetPolicy.refresh({
        name: `${name}-by-id`,
        identity: (row: Row) => ({ tenant: row.tenant, id: row.id }),
        refresh: (row: Row) => ({ ...row }),
      }),
      requiresConfirmation: requiresConfirmation({
        bind: (_envelope, row: Row) => ({ id: row.id }),
        reason: 'confirm',
        ...(actorKey === undefined ? {} : { actorKey }),
      }),
    },
    (action) => {
      ran.push(`${name}:${action.arguments.id}`);
      return 'done';
    },
  );

/**
 * One pending receipt per actor, conversation and tool call, under any capability (docs/approvals.md "Pending-receipt
 * caps", ADR 0184), also when the confirmed capabilities key actors differently: a second receipt of the actor's
 * tool call under another capability would make the call ambiguous to every lookup, so the approval endpoint answered
 * 409 for the real call until the receipts expired.
 */
describe.each(receiptStoreBackends())('pending cap of a tool call across actor keys [%s]', (_engine, open) => {
  let backend: ReceiptStoreBackend;
  beforeAll(async () => {
    backend = await open();
  });
  afterAll(async () => {
    await backend?.close();
  });

  /** `orders.refund` and `orders.cancel`, confirmed under the given actor keys, on a store of the backend. */
  async function setup(refundKey: Key, cancelKey: Key) {
    const ran: string[] = [];
    const moduleRef = await Test.createTestingModule({
      imports: [
        VerdictModule.forRoot({
          abilityFactory: { createForContext: () => createMongoAbility([{ action: 'act', subject: 'all' }]) },
          approvals: backend.store(),
          capabilities: [confirmed('orders.refund', refundKey, ran), confirmed('orders.cancel', cancelKey, ran)],
        }),
      ],
    }).compile();
    await moduleRef.init();
    const contexts = moduleRef.get(ActionContextStore);
    const verdict = moduleRef.get(VerdictService);
    const approvals = moduleRef.get(ApprovalService);
    const propose = (context: ActionContext, capability: string, toolCallId: string, explicitApproval = false) =>
      contexts.run(context, () =>
        verdict.execute({ capability, arguments: { id: 7 }, toolCallId }, { explicitApproval }),
      );
    const disposition = async (context: ActionContext, capability: string, toolCallId: string) =>
      (await propose(context, capability, toolCallId)).decision.disposition;
    return { propose, disposition, approvals, ran, close: () => moduleRef.close() };
  }

  // Actors of their own per test: their pending receipts are what the caps count.
  const actor = (name: string, conversationId = 'c-1'): ActionContext => ({
    actor: { id: `${name}-${randomBytes(4).toString('hex')}` },
    tenant: 'acme',
    metadata: { conversationId },
  });
  const newToolCallId = () => `call_${randomBytes(8).toString('hex')}`;

  it('throttles a second capability under the tool-call id when the two key the actor differently; the first stays approvable and runs', async () => {
    const app = await setup(byId, undefined);
    const alice = actor('alice');
    const call = newToolCallId();
    expect(await app.disposition(alice, 'orders.refund', call)).toBe('require_confirmation');

    // An injected or replayed proposal reusing the tool-call id under another confirmed capability.
    expect(await app.disposition(alice, 'orders.cancel', call)).toBe('throttle');

    expect(await app.approvals.pending([call], alice)).toHaveLength(1);
    const challenge = await app.approvals.challengeForToolCall(call, alice);
    expect(challenge).toMatchObject({ capability: 'orders.refund' });
    expect(await app.approvals.approve(challenge!.receiptId, call, 'member:ana')).toMatchObject({
      outcome: 'approved',
    });
    expect(await app.propose(alice, 'orders.refund', call, true)).toMatchObject({ executed: true, output: 'done' });
    expect(app.ran).toEqual(['orders.refund:7']);
    await app.close();
  });

  it('throttles the other way round too (the capability keyed by the actor itself first)', async () => {
    const app = await setup(byId, undefined);
    const alice = actor('alice');
    const call = newToolCallId();
    expect(await app.disposition(alice, 'orders.cancel', call)).toBe('require_confirmation');

    expect(await app.disposition(alice, 'orders.refund', call)).toBe('throttle');
    expect(await app.approvals.challengeForToolCall(call, alice)).toMatchObject({ capability: 'orders.cancel' });
    await app.close();
  });

  it('leaves one pending receipt per tool call when the two capabilities race under it', async () => {
    const app = await setup(byId, undefined);
    const alice = actor('alice');
    const calls = Array.from({ length: 8 }, newToolCallId);

    const answers = await Promise.all(
      calls.flatMap((call) => [
        app.disposition(alice, 'orders.refund', call),
        app.disposition(alice, 'orders.cancel', call),
      ]),
    );

    expect(answers.filter((answer) => answer === 'require_confirmation')).toHaveLength(calls.length);
    expect(answers.filter((answer) => answer === 'throttle')).toHaveLength(calls.length);
    for (const call of calls) {
      expect(await app.approvals.pending([call], alice)).toHaveLength(1);
      expect(await app.approvals.challengeForToolCall(call, alice)).not.toBeNull();
    }
    await app.close();
  });

  it.each([
    ['a failed lookup', new Error('customer directory unavailable')],
    ['a VerdictConfigurationError of its own', new VerdictConfigurationError('customer directory: no such customer')],
  ])(
    "attack: a confirming capability's key that throws (%s) fails the other capability's proposal; never a second receipt of the tool call",
    async (_, outage) => {
      const { key, directory } = directoryKey(outage);
      const app = await setup(key, undefined);
      const alice = actor('alice');
      const call = newToolCallId();
      expect(await app.disposition(alice, 'orders.refund', call)).toBe('require_confirmation');

      directory.up = false;
      // What the refund's own proposals fail with, the cancel's proposal under the tool-call id fails with too: its
      // pending-receipt cap could not count the receipts under the refund's key.
      await expect(app.propose(alice, 'orders.refund', newToolCallId())).rejects.toBe(outage);
      await expect(app.propose(alice, 'orders.cancel', call)).rejects.toBe(outage);

      directory.up = true;
      expect(await app.approvals.pending([call], alice)).toHaveLength(1);
      const challenge = await app.approvals.challengeForToolCall(call, alice);
      expect(challenge).toMatchObject({ capability: 'orders.refund' });
      expect(await app.approvals.approve(challenge!.receiptId, call, 'member:ana')).toMatchObject({
        outcome: 'approved',
      });
      expect(await app.propose(alice, 'orders.refund', call, true)).toMatchObject({ executed: true, output: 'done' });
      expect(app.ran).toEqual(['orders.refund:7']);
      await app.close();
    },
  );

  it('control: a key that names nobody for the actor leaves the other capability asking, and its cap still limits', async () => {
    // A guest has no customer id: the refund's key names nobody for them, so none of its receipts can be theirs.
    const app = await setup((guest) => (guest.id.startsWith('guest') ? null : guest.id), undefined);
    const guest = actor('guest');
    const call = newToolCallId();
    expect(await app.disposition(guest, 'orders.cancel', call)).toBe('require_confirmation');
    expect(await app.approvals.challengeForToolCall(call, guest)).toMatchObject({ capability: 'orders.cancel' });
    await expect(app.propose(guest, 'orders.refund', call)).rejects.toThrow(VerdictConfigurationError);

    // A keyed actor's two capabilities under one tool-call id: still one pending receipt.
    const alice = actor('alice');
    expect(await app.disposition(alice, 'orders.cancel', call)).toBe('require_confirmation');
    expect(await app.disposition(alice, 'orders.refund', call)).toBe('throttle');
    expect(await app.approvals.pending([call], alice)).toHaveLength(1);
    await app.close();
  });

  it('control: with one actor key the second capability under the tool-call id is throttled, as before', async () => {
    const app = await setup(undefined, undefined);
    const alice = actor('alice');
    const call = newToolCallId();
    expect(await app.disposition(alice, 'orders.refund', call)).toBe('require_confirmation');

    expect(await app.disposition(alice, 'orders.cancel', call)).toBe('throttle');
    expect(await app.approvals.challengeForToolCall(call, alice)).toMatchObject({ capability: 'orders.refund' });
    await app.close();
  });

  it("control: the actor's two tool calls under the two capabilities each get a receipt of their own", async () => {
    const app = await setup(byId, undefined);
    const alice = actor('alice');
    const [refund, cancel] = [newToolCallId(), newToolCallId()];

    expect(await app.disposition(alice, 'orders.refund', refund)).toBe('require_confirmation');
    expect(await app.disposition(alice, 'orders.cancel', cancel)).toBe('require_confirmation');
    expect(await app.approvals.challengeForToolCall(refund, alice)).toMatchObject({ capability: 'orders.refund' });
    expect(await app.approvals.challengeForToolCall(cancel, alice)).toMatchObject({ capability: 'orders.cancel' });
    await app.close();
  });

  it('control: another actor in the same conversation, and the same actor in another, get a receipt of their own under the id', async () => {
    const app = await setup(byId, undefined);
    const alice = actor('alice');
    const bob = actor('bob');
    const aliceElsewhere: ActionContext = { ...alice, metadata: { conversationId: 'c-2' } };
    const call = newToolCallId();
    expect(await app.disposition(alice, 'orders.refund', call)).toBe('require_confirmation');

    expect(await app.disposition(bob, 'orders.cancel', call)).toBe('require_confirmation');
    expect(await app.disposition(aliceElsewhere, 'orders.cancel', call)).toBe('require_confirmation');
    expect(await app.approvals.challengeForToolCall(call, alice)).toMatchObject({ capability: 'orders.refund' });
    expect(await app.approvals.challengeForToolCall(call, bob)).toMatchObject({ capability: 'orders.cancel' });
    expect(await app.approvals.challengeForToolCall(call, aliceElsewhere)).toMatchObject({
      capability: 'orders.cancel',
    });
    await app.close();
  });
});
