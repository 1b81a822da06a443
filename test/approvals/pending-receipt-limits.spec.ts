import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { InMemoryApprovalReceiptStore } from '@verdict/nestjs';
import { type ReceiptStoreBackend, receiptStoreBackends } from './receipt-stores.fixture.js';
import { member, sharedInvoiceFixture } from './shared-invoice.fixture.js';

/**
 * Hardening #10.4: pending receipts are capped per actor and capability (`maxPending`), and one tool
 * call holds at most one pending receipt per actor, so spam can neither pile up durable rows nor make
 * the legitimate tool call ambiguous. Over a cap the proposal is a recorded `throttle`; nothing is issued.
 */
describe.each(receiptStoreBackends())('pending receipt limits [%s]', (_engine, open) => {
  let harness: ReceiptStoreBackend;
  beforeAll(async () => {
    harness = await open();
  });
  afterAll(async () => {
    await harness?.close();
  });
  // Actors of their own per test, too: their pending receipts are what the caps count.
  const setup = async (maxPending?: number) => ({
    ...(await sharedInvoiceFixture({ store: harness.store(), maxPending })),
    ana: member(`ana-${randomBytes(4).toString('hex')}`),
  });

  it('throttles 200 proposals for one tool call that differ only in arguments; the legitimate one stays approvable and executes', async () => {
    const fixture = await setup();
    const { ana } = fixture;
    const call = newToolCallId();
    const legitimate = await fixture.propose(ana, call, { invoiceId: 7, amountCents: 500 });
    expect(legitimate.decision.disposition).toBe('require_confirmation');

    const spam = [];
    for (let amount = 1; amount <= 200; amount++)
      spam.push(await fixture.propose(ana, call, { invoiceId: 7, amountCents: 10_000 + amount }));

    expect(
      new Set(spam.map((result) => `${result.executed}:${result.decision.disposition}:${result.decision.stage}`)),
    ).toEqual(new Set(['false:throttle:approval']));
    expect(spam.some((result) => !result.executed && result.challenge !== undefined)).toBe(false);
    const challenge = await fixture.approve(call, ana);
    expect(challenge.receiptId).toBe(!legitimate.executed && legitimate.challenge?.receiptId);
    expect(await fixture.propose(ana, call, { invoiceId: 7, amountCents: 500 }, true)).toMatchObject({
      executed: true,
      output: 'refunded 500',
    });
    expect(fixture.refunded).toEqual([{ by: ana.actor, invoice: 7, amountCents: 500 }]);
    await fixture.close();
  });

  it('records each throttled proposal as a throttle at the approval stage, with the tool call fingerprinted only', async () => {
    const fixture = await setup();
    const { ana } = fixture;
    const call = newToolCallId();
    await fixture.propose(ana, call, { invoiceId: 7, amountCents: 500 });
    await fixture.propose(ana, call, { invoiceId: 7, amountCents: 600 });

    const throttled = fixture.evidence.decisions().filter((record) => record.disposition === 'throttle');
    expect(throttled).toHaveLength(1);
    expect(throttled[0]).toMatchObject({
      stage: 'approval',
      approvalPhase: 'proposal_validation',
      approvalOutcome: 'pending_limit',
      receiptFingerprint: null,
    });
    expect(JSON.stringify(fixture.evidence.decisions())).not.toContain(call);
    await fixture.close();
  });

  it('caps pending receipts per actor and capability at maxPending; another actor is not affected', async () => {
    const fixture = await setup(3);
    const { ana } = fixture;
    const calls = [newToolCallId(), newToolCallId(), newToolCallId(), newToolCallId()];
    const answers = [];
    for (const [index, call] of calls.entries())
      answers.push(await fixture.propose(ana, call, { invoiceId: 7, amountCents: 100 + index }));

    expect(answers.map((result) => result.decision.disposition)).toEqual([
      'require_confirmation',
      'require_confirmation',
      'require_confirmation',
      'throttle',
    ]);
    expect(await fixture.approvals.challengeForToolCall(calls[3]!, ana)).toBeNull();
    expect(
      (await fixture.propose(member('ben'), newToolCallId(), { invoiceId: 7, amountCents: 100 })).decision.disposition,
    ).toBe('require_confirmation');
    await fixture.close();
  });

  it('frees a place when a pending receipt is approved, rejected or expires', async () => {
    const fixture = await setup(1);
    const { ana } = fixture;
    const [first, second, third, fourth] = [newToolCallId(), newToolCallId(), newToolCallId(), newToolCallId()];
    await fixture.propose(ana, first, { invoiceId: 7, amountCents: 100 });
    expect((await fixture.propose(ana, second, { invoiceId: 7, amountCents: 200 })).decision.disposition).toBe(
      'throttle',
    );

    await fixture.approve(first, ana);
    expect((await fixture.propose(ana, second, { invoiceId: 7, amountCents: 200 })).decision.disposition).toBe(
      'require_confirmation',
    );

    const pending = (await fixture.approvals.challengeForToolCall(second, ana))!;
    await fixture.approvals.reject(pending.receiptId, second, 'member:ana');
    expect((await fixture.propose(ana, third, { invoiceId: 7, amountCents: 300 })).decision.disposition).toBe(
      'require_confirmation',
    );

    fixture.advance(600_000);
    expect((await fixture.propose(ana, fourth, { invoiceId: 7, amountCents: 400 })).decision.disposition).toBe(
      'require_confirmation',
    );
    await fixture.close();
  });

  // Review of #10.3/#10.4, F4: the one-pending-per-tool-call rule is per actor and conversation.
  it('lets the same actor hold a pending receipt for a colliding tool-call id in another conversation; both stay approvable', async () => {
    const fixture = await setup();
    const id = fixture.ana.actor.id;
    const [threadA, threadB] = [member(id, 'acme', 'thread-a'), member(id, 'acme', 'thread-b')];
    const call = newToolCallId();
    await fixture.propose(threadA, call, { invoiceId: 7, amountCents: 500 });

    const other = await fixture.propose(threadB, call, { invoiceId: 7, amountCents: 900 });

    expect(other.decision.disposition).toBe('require_confirmation');
    await fixture.approve(call, threadB);
    expect(await fixture.propose(threadB, call, { invoiceId: 7, amountCents: 900 }, true)).toMatchObject({
      executed: true,
      output: 'refunded 900',
    });
    await fixture.approve(call, threadA);
    expect(await fixture.propose(threadA, call, { invoiceId: 7, amountCents: 500 }, true)).toMatchObject({
      executed: true,
      output: 'refunded 500',
    });
    await fixture.close();
  });

  it('still throttles a second pending receipt of the tool call in the same conversation (the attack stays closed)', async () => {
    const fixture = await setup();
    const threadA = member(fixture.ana.actor.id, 'acme', 'thread-a');
    const call = newToolCallId();
    await fixture.propose(threadA, call, { invoiceId: 7, amountCents: 500 });

    expect((await fixture.propose(threadA, call, { invoiceId: 7, amountCents: 900 })).decision.disposition).toBe(
      'throttle',
    );
    await fixture.close();
  });

  it('counts maxPending per actor across conversations', async () => {
    const fixture = await setup(2);
    const id = fixture.ana.actor.id;
    const answers = [];
    for (const thread of ['thread-a', 'thread-b', 'thread-c'])
      answers.push(
        await fixture.propose(member(id, 'acme', thread), newToolCallId(), { invoiceId: 7, amountCents: 100 }),
      );

    expect(answers.map((result) => result.decision.disposition)).toEqual([
      'require_confirmation',
      'require_confirmation',
      'throttle',
    ]);
    await fixture.close();
  });

  it('asks again for a changed binding once the earlier receipt of the tool call is approved (the order changed since)', async () => {
    const fixture = await setup();
    const { ana } = fixture;
    const call = newToolCallId();
    await fixture.propose(ana, call, { invoiceId: 7, amountCents: 500 });
    await fixture.approve(call, ana);
    fixture.invoices.set('acme/7', { tenant: 'acme', id: 7, version: 2 });

    const changed = await fixture.propose(ana, call, { invoiceId: 7, amountCents: 500 }, true);

    expect(changed.decision.disposition).toBe('require_confirmation');
    await fixture.approve(call, ana);
    expect(await fixture.propose(ana, call, { invoiceId: 7, amountCents: 500 }, true)).toMatchObject({
      executed: true,
    });
    await fixture.close();
  });
});

/** Tool calls of their own per test: the database stores are shared by the tests of an engine. */
function newToolCallId(): string {
  return `call_${randomBytes(8).toString('hex')}`;
}

describe('pending receipt limits at boot', () => {
  it.each([0, -1, 1.5, Number.NaN])('refuses to boot with maxPending %p', async (maxPending) => {
    await expect(sharedInvoiceFixture({ store: new InMemoryApprovalReceiptStore(), maxPending })).rejects.toThrow(
      /maxPending that is not a positive integer/,
    );
  });
});
