import { describe, expect, it } from '@jest/globals';
import { HumanMessage } from '@langchain/core/messages';
import { Command, MemorySaver } from '@langchain/langgraph';
import { createAgent } from 'langchain';
import {
  type ActionContext,
  type Approver,
  DataClass,
  Destination,
  type ProvenancePolicy,
  ReleasePolicy,
  Source,
  Trust,
  VerdictConfigurationError,
} from '@verdict/nestjs';
import { approveToolCall } from '@verdict/nestjs/langchain';
import { ScriptedChatModel } from '@verdict/nestjs/testing/langchain';
import { ATTACKER_IBAN, alice, paymentsFixture, type PaymentsSetup } from './payments.fixture.js';

const APPROVAL_UI = Destination.connection('approval-ui', 'staff');
const toApprovalUi = ReleasePolicy.route(Source.external('product-reviews'), APPROVAL_UI)
  .allow({ classes: [DataClass.Internal], trust: [Trust.Untrusted] })
  .detectWith([]);
const approver = (id: string): Approver => ({ id: `user:${id}`, context: { actor: { id }, tenant: 'acme' } });

/** The account the payment leaves, as the capability resolves it (`payments.fixture.ts`). */
type Account = { id: string; owner: string; tenant: string };

/** Provenance alone asks for confirmation: a recipient read from the reviews; payments declare no `requiresConfirmation`. */
const confirmsByProvenance: ProvenancePolicy<unknown, ActionContext, Account> = {
  untrustedContext: 'allow',
  arguments: { recipient: 'require_confirmation' },
};
const withSubject: ProvenancePolicy<unknown, ActionContext, Account> = {
  ...confirmsByProvenance,
  subject: (_envelope, account) => ({ owner: account.owner, tenant: account.tenant }),
  describe: (envelope, account) => `Pay ${(envelope.arguments as { amount: number }).amount} from ${account.id}`,
};

/**
 * Every user approves the confirmations of their own account only: CASL `approve` on `'Approval'` with
 * `{ owner: <their id> }`. Alice's agent reads the reviews and proposes a payment to the IBAN an injected review
 * names: the run pauses for confirmation.
 */
async function pausedPayment(payments: ProvenancePolicy) {
  const setup: PaymentsSetup = { payments, releasePolicies: [toApprovalUi], approve: (id) => ({ owner: id }) };
  const fixture = await paymentsFixture(setup);
  const agent = createAgent({
    model: new ScriptedChatModel([
      { toolCalls: [{ name: 'view_product', args: { productId: 'p-1' }, id: 'call_view' }] },
      { toolCalls: [{ name: 'send_payment', args: { recipient: ATTACKER_IBAN, amount: 25 }, id: 'call_pay' }] },
      { text: 'done' },
    ]),
    tools: fixture.tools,
    checkpointer: new MemorySaver(),
    middleware: [fixture.trackers.forAgent().middleware()],
  });
  const config = { configurable: { thread_id: 't' } };
  await fixture.as(() => agent.invoke({ messages: [new HumanMessage('Tell me about p-1.')] }, config));
  const challenge = (await fixture.approvals.challengeForToolCall('call_pay', alice))!;
  const resume = () => fixture.as(() => agent.invoke(new Command({ resume: approveToolCall('call_pay') }), config));
  return { fixture, challenge, resume };
}

const readsPassage = (
  approvals: Awaited<ReturnType<typeof pausedPayment>>['fixture']['approvals'],
  id: string,
  receiptId: string,
) => approvals.untrustedContent(receiptId, approver(id), { destination: APPROVAL_UI }, alice);

describe('a confirmation asked by provenance alone names its subject (ADR 0114)', () => {
  it('utility: the receipt carries the subject and description built from the resolved target; its owner may approve it and the payment runs', async () => {
    const { fixture, challenge, resume } = await pausedPayment(withSubject);
    expect(challenge).toMatchObject({
      capability: 'payments.send',
      subject: { owner: 'alice', tenant: 'acme' },
      description: 'Pay 25 from acct-alice',
    });
    expect(fixture.payments).toEqual([]);
    const release = await readsPassage(fixture.approvals, 'alice', challenge.receiptId);
    expect(
      release.allowed && release.items.length > 0 && release.items.every((item) => item.status === 'released'),
    ).toBe(true);
    await fixture.approvals.approve(challenge.receiptId, 'call_pay', 'user:alice');
    await resume();
    expect(fixture.payments.map((payment) => payment.arguments)).toEqual([{ recipient: ATTACKER_IBAN, amount: 25 }]);
  });

  it('attack: an approver whose CASL conditions do not match the subject is refused, and nothing is released', async () => {
    const { fixture, challenge } = await pausedPayment(withSubject);
    expect(await readsPassage(fixture.approvals, 'bob', challenge.receiptId)).toEqual({
      allowed: false,
      outcome: 'forbidden',
    });
    expect(fixture.evidence.releases()).toEqual([]);
    expect(fixture.payments).toEqual([]);
  });

  it('fails closed without a declared subject: no conditional approver matches a receipt that names nothing', async () => {
    const { fixture, challenge } = await pausedPayment(confirmsByProvenance);
    expect(challenge).toMatchObject({ subject: null, description: null });
    expect(await readsPassage(fixture.approvals, 'alice', challenge.receiptId)).toEqual({
      allowed: false,
      outcome: 'forbidden',
    });
  });

  it('refuses at boot a subject declared both on the policy and on the capability’s own confirmation, or not a function', async () => {
    await expect(paymentsFixture({ payments: withSubject, confirmPayments: true })).rejects.toThrow(
      VerdictConfigurationError,
    );
    await expect(
      paymentsFixture({ payments: { ...confirmsByProvenance, subject: { owner: 'alice' } as never } }),
    ).rejects.toThrow(/provenance subject that is not a function/);
  });
});
