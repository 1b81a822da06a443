import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { NonCanonicalValueError } from '@verdict/nestjs';
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
  const setup = (options: { actorKey?: (actor: any) => any } = {}) => sharedInvoiceFixture({ store: harness.store(), ...options });

  it("refuses another actor's resume of the approved tool call with the same arguments: nothing executes, the approval stays unused", async () => {
    const fixture = await setup();
    const call = newToolCallId();
    await fixture.propose(member('ana'), call, REFUND);
    const challenge = await fixture.approve(call);

    const stolen = await fixture.propose(member('ben'), call, REFUND, true);

    expect(stolen).toMatchObject({ executed: false, decision: { disposition: 'require_confirmation', stage: 'approval' } });
    expect(fixture.refunded).toEqual([]);
    expect((await fixture.approvals.challengeForToolCall(call))?.receiptId).not.toBe(challenge.receiptId);
    await fixture.close();
  });

  it("executes the approving actor's own resume once (the control)", async () => {
    const fixture = await setup();
    const call = newToolCallId();
    await fixture.propose(member('ana'), call, REFUND);
    await fixture.approve(call);

    const resumed = await fixture.propose(member('ana'), call, REFUND, true);

    expect(resumed).toMatchObject({ executed: true, output: 'refunded 500' });
    expect(fixture.refunded).toEqual([{ by: { id: 'ana' }, invoice: 7, amountCents: 500 }]);
    await fixture.close();
  });

  it('refuses the same actor in another tenant, where the invoice has the same id and version', async () => {
    const fixture = await setup();
    const call = newToolCallId();
    await fixture.propose(member('ana', 'acme'), call, REFUND);
    await fixture.approve(call);

    const elsewhere = await fixture.propose(member('ana', 'globex'), call, REFUND, true);

    expect(elsewhere).toMatchObject({ executed: false, decision: { disposition: 'require_confirmation' } });
    expect(fixture.refunded).toEqual([]);
    await fixture.close();
  });

  it('refuses the same actor resuming in another conversation; in the conversation it was approved in, it executes', async () => {
    const fixture = await setup();
    const call = newToolCallId();
    await fixture.propose(member('ana', 'acme', 'thread-a'), call, REFUND);
    await fixture.approve(call);

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
    await fixture.approve(call);

    const resumed = await fixture.propose({ actor: { id: 'ana', session: 'phone' }, tenant: 'acme' }, call, REFUND, true);

    expect(resumed).toMatchObject({ executed: true });
    await fixture.close();
  });

  it('fails with NonCanonicalValueError naming the path when the actor is not plain JSON; nothing is issued or executed', async () => {
    const fixture = await setup();
    const call = newToolCallId();
    const actor = { id: 'ana', signedInAt: new Date('2026-03-01T08:00:00.000Z') };

    await expect(fixture.propose({ actor, tenant: 'acme' }, call, REFUND)).rejects.toThrow(NonCanonicalValueError);
    await expect(fixture.propose({ actor, tenant: 'acme' }, call, REFUND)).rejects.toThrow(/\$\.actor\.signedInAt/);
    expect(await fixture.approvals.challengeForToolCall(call)).toBeNull();
    expect(fixture.refunded).toEqual([]);
    await fixture.close();
  });
});

/** Tool calls of their own per test: the database stores are shared by the tests of an engine. */
function newToolCallId(): string {
  return `call_${randomBytes(8).toString('hex')}`;
}
