import { describe, expect, it } from '@jest/globals';
import { HumanMessage } from '@langchain/core/messages';
import { Command, MemorySaver } from '@langchain/langgraph';
import { createAgent } from 'langchain';
import {
  type ActionContext,
  type Approver,
  ContainmentService,
  DataClass,
  Destination,
  InMemoryApprovalReceiptStore,
  InMemoryContainmentStore,
  InMemoryProvenanceContentStore,
  ReleasePolicy,
  Source,
  Trust,
  fingerprintString,
} from '@verdict/nestjs';
import { approveToolCall } from '@verdict/nestjs/langchain';
import { ScriptedChatModel } from '@verdict/nestjs/testing/langchain';
import { ATTACKER_IBAN, PRODUCT, alice, paymentsFixture } from './payments.fixture.js';

const APPROVAL_UI = Destination.connection('approval-ui', 'staff');
const REVIEWS_TEXT = PRODUCT.reviews.map((review) => review.text).join('\n');
const toApprovalUi = ReleasePolicy.route(Source.external('product-reviews'), APPROVAL_UI)
  .allow({ classes: [DataClass.Internal], trust: [Trust.Untrusted] })
  .detectWith([]);
const approver = (id: string, tenant = 'acme'): Approver => ({ id: `staff:${id}`, context: { actor: { id }, tenant } });
const bob: ActionContext = { actor: { id: 'bob' }, tenant: 'acme', metadata: { conversationId: 'c-1' } };

/**
 * Two "processes" (module instances with their own memories) sharing what a deployment shares: the receipt
 * store and the store of parked windows' texts. The first parks alice's payment for an approver.
 */
async function parkedInOneProcess() {
  const approvals = new InMemoryApprovalReceiptStore();
  const contents = new InMemoryProvenanceContentStore();
  const setup = {
    payments: { untrustedContext: 'allow', arguments: { recipient: 'require_confirmation' } } as const,
    releasePolicies: [toApprovalUi],
    approvals,
    provenance: { contents },
    containment: { store: new InMemoryContainmentStore() },
  };
  const first = await paymentsFixture(setup);
  const agent = createAgent({
    model: new ScriptedChatModel([
      { toolCalls: [{ name: 'view_product', args: { productId: 'p-1' }, id: 'call_view' }] },
      { toolCalls: [{ name: 'send_payment', args: { recipient: ATTACKER_IBAN, amount: 25 }, id: 'call_pay' }] },
      { text: 'done' },
    ]),
    tools: first.tools,
    checkpointer: new MemorySaver(),
    middleware: [first.trackers.forAgent().middleware()],
  });
  const config = { configurable: { thread_id: 't' } };
  await first.as(() => agent.invoke({ messages: [new HumanMessage('Tell me about p-1.')] }, config));
  const challenge = (await first.approvals.challengeForToolCall('call_pay', alice))!;
  const second = await paymentsFixture(setup);
  /** The paused run resumed in the first process with the approval of its payment. */
  const resume = () => first.as(() => agent.invoke(new Command({ resume: approveToolCall('call_pay') }), config));
  return { first, second, challenge, contents, resume };
}

describe('ApprovalService.untrustedContent checks the approver, in any process (ADR 0042)', () => {
  it('utility: an allowed approver served by another process reads the text the agent read', async () => {
    const { second, challenge } = await parkedInOneProcess();
    const release = await second.approvals.untrustedContent(
      challenge.receiptId,
      approver('7'),
      { destination: APPROVAL_UI },
      alice,
    );
    expect(release).toMatchObject({
      allowed: true,
      complete: true,
      items: [{ status: 'released', text: REVIEWS_TEXT }],
    });
    expect(second.evidence.releases()).toEqual([expect.objectContaining({ disposition: 'permit' })]);
  });

  it('attack: an approver of another tenant, or one asking about a receipt that is not the requester’s, gets nothing', async () => {
    const { second, challenge } = await parkedInOneProcess();
    const elsewhere = await second.approvals.untrustedContent(
      challenge.receiptId,
      approver('7', 'globex'),
      { destination: APPROVAL_UI },
      { ...alice, tenant: 'globex' },
    );
    const notBobs = await second.approvals.untrustedContent(
      challenge.receiptId,
      approver('7'),
      { destination: APPROVAL_UI },
      bob,
    );
    // Without a requester the approver reads only what they asked for themselves: not alice's receipt.
    const own = await second.approvals.untrustedContent(challenge.receiptId, approver('7'), {
      destination: APPROVAL_UI,
    });
    expect([elsewhere, notBobs, own]).toEqual([
      { allowed: false, outcome: 'not_found' },
      { allowed: false, outcome: 'not_found' },
      { allowed: false, outcome: 'not_found' },
    ]);
    expect(second.evidence.releases()).toEqual([]);
  });

  it('attack: an approver without CASL approve, or a contained one, gets nothing', async () => {
    const { second, challenge } = await parkedInOneProcess();
    const intern = await second.approvals.untrustedContent(
      challenge.receiptId,
      { id: 'staff:intern', context: { actor: { id: 'intern' }, tenant: 'acme' } },
      { destination: APPROVAL_UI },
      alice,
    );
    await second.moduleRef
      .get(ContainmentService)
      .engage({ scope: 'actor', subject: '{"id":"7"}', reason: 'INC-1: compromised', by: 'operator:1' });
    const contained = await second.approvals.untrustedContent(
      challenge.receiptId,
      approver('7'),
      { destination: APPROVAL_UI },
      alice,
    );
    expect([intern, contained]).toEqual([
      { allowed: false, outcome: 'forbidden' },
      { allowed: false, outcome: 'contained' },
    ]);
    expect(second.evidence.releases()).toEqual([]);
  });

  it('deletes the texts once the receipt is decided', async () => {
    const { second, challenge, contents } = await parkedInOneProcess();
    expect(await contents.text(fingerprintString(REVIEWS_TEXT))).toBe(REVIEWS_TEXT);
    await second.approvals.reject(challenge.receiptId, 'call_pay', 'staff:7');
    expect(await contents.text(fingerprintString(REVIEWS_TEXT))).toBeUndefined();
  });

  it('keeps the texts deleted when the approved payment is resumed and runs', async () => {
    const { first, second, challenge, contents, resume } = await parkedInOneProcess();
    await second.approvals.approve(challenge.receiptId, 'call_pay', 'staff:7');
    expect(await contents.text(fingerprintString(REVIEWS_TEXT))).toBeUndefined();
    await resume();
    expect(first.payments.map((payment) => payment.arguments.recipient)).toEqual([ATTACKER_IBAN]);
    expect(await contents.text(fingerprintString(REVIEWS_TEXT))).toBeUndefined();
  });
});
