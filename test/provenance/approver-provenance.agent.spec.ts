import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HumanMessage } from '@langchain/core/messages';
import { MemorySaver } from '@langchain/langgraph';
import { createAgent } from 'langchain';
import {
  type Approver,
  type ApproverProvenance,
  DataClass,
  Destination,
  InMemoryApprovalReceiptStore,
  InvalidReleaseRequestError,
  type ProvenancePolicy,
  ReleasePolicy,
  Source,
  Trust,
  UnknownApprovalReceiptError,
  fingerprintString,
} from '@verdict/nestjs';
import type { ApprovalInterrupt } from '@verdict/nestjs/langchain';
import { ScriptedChatModel } from '@verdict/nestjs/testing/langchain';
import { type ReceiptStoreBackend, receiptStoreBackends } from '../approvals/receipt-stores.fixture.js';
import { ATTACKER_IBAN, OWN_IBAN, PRODUCT, alice, paymentsFixture, type PaymentsSetup } from './payments.fixture.js';

const VIEW = { name: 'view_product', args: { productId: 'p-1' }, id: 'call_view' };
const pay = (recipient: string) => ({ name: 'send_payment', args: { recipient, amount: 25 }, id: 'call_pay' });
const CONFIRM_RECIPIENT: ProvenancePolicy = {
  untrustedContext: 'allow',
  arguments: { recipient: 'require_confirmation' },
};
/** The approval UI's connection: where an approver reads what the agent read. */
const APPROVAL_UI = Destination.connection('approval-ui', 'staff');
/** A destination no route leads to. */
const PARTNER = Destination.connection('partner-dashboard', 'partner-cloud');
const REVIEWS = Source.external('product-reviews');
/** The reviews the agent read, as the tracker labelled them: one untrusted item, `reviews.*.text` joined. */
const REVIEWS_TEXT = PRODUCT.reviews.map((review) => review.text).join('\n');
const REVIEWS_SOURCE = {
  kind: 'external',
  name: 'product-reviews',
  trust: 'untrusted',
  description: 'external:product-reviews (untrusted)',
};
/** Untrusted review text may reach the approval UI; no PII detectors, so the injected IBAN is shown as written. */
const toApprovalUi = ReleasePolicy.route(REVIEWS, APPROVAL_UI)
  .allow({ classes: [DataClass.Internal], trust: [Trust.Untrusted] })
  .detectWith([]);
/** Anything that could reveal the injected review or the IBAN it supplies, in any spelling. */
const CONTENT = /de89|3704 ?0044|IMPORTANT|kettle|deposit/i;

/** One real createAgent loop: the model reads the product (with its injected review), then pays `recipient`. */
async function run(setup: PaymentsSetup, question: string, recipient: string) {
  const fixture = await paymentsFixture({ releasePolicies: [toApprovalUi], ...setup });
  const model = new ScriptedChatModel([{ toolCalls: [VIEW] }, { toolCalls: [pay(recipient)] }, { text: 'done' }]);
  const agent = createAgent({
    model,
    tools: fixture.tools,
    checkpointer: new MemorySaver(),
    middleware: [fixture.trackers.forAgent().middleware()],
  });
  const config = { configurable: { thread_id: `thread-${recipient}` } };
  const state = (await fixture.as(() => agent.invoke({ messages: [new HumanMessage(question)] }, config))) as {
    __interrupt__?: { value: ApprovalInterrupt }[];
  };
  const interrupts = (state.__interrupt__ ?? []).map((interrupt) => interrupt.value);
  return { ...fixture, interrupts };
}

const injected = (setup: PaymentsSetup = {}) =>
  run({ payments: CONFIRM_RECIPIENT, ...setup }, 'Tell me about product p-1.', ATTACKER_IBAN);

/** A staff approver of alice's tenant, reading alice's receipt. */
const STAFF: Approver = { id: 'staff:7', context: { actor: { id: 'staff-7' }, tenant: 'acme' } };

const EXPECTED: ApproverProvenance = {
  observed: true,
  untrustedContext: true,
  untrustedSources: [REVIEWS_SOURCE],
  arguments: [{ path: 'recipient', sources: [REVIEWS_SOURCE] }],
  untrustedContent: [{ fingerprint: fingerprintString(REVIEWS_TEXT), source: REVIEWS_SOURCE }],
  summary:
    'Untrusted content in context: external:product-reviews (untrusted). Argument recipient matches content from external:product-reviews (untrusted).',
} as ApproverProvenance;

describe('the approver sees provenance (a real createAgent loop, scripted model, provenance tracker)', () => {
  describe('the structured summary', () => {
    it('is on the interrupt and the challenge: which source was in context, which argument came from it', async () => {
      const { interrupts, approvals, payments } = await injected();
      expect(payments).toHaveLength(0);
      expect(interrupts.map((interrupt) => interrupt.provenance)).toEqual([EXPECTED]);
      const challenge = await approvals.challengeForToolCall('call_pay', alice);
      expect(challenge?.provenance).toEqual(EXPECTED);
      // The text reason is unchanged: the summary follows the policy's reason.
      expect(challenge?.reason).toBe(EXPECTED.summary);
    });

    it('never holds the argument value or the untrusted text', async () => {
      const { interrupts, approvals } = await injected();
      const challenge = await approvals.challengeForToolCall('call_pay', alice);
      const pending = await approvals.pending(['call_pay'], alice);
      for (const shown of [interrupts, challenge?.provenance, pending])
        expect(JSON.stringify(shown)).not.toMatch(CONTENT);
    });

    it('shows an argument path the policy does not declare as its fingerprint (strict mode)', async () => {
      const { interrupts } = await injected({ payments: undefined, provenance: { strict: true } });
      const [shown] = interrupts.map((interrupt) => interrupt.provenance!);
      expect(shown!.arguments.map((argument) => argument.path)).toEqual([
        `#${fingerprintString('recipient').slice(0, 16)}`,
      ]);
      expect(JSON.stringify(shown)).not.toContain('recipient');
    });

    it("utility: the customer's own IBAN asks for no approval and pays", async () => {
      const { interrupts, payments, approvals } = await run(
        { payments: CONFIRM_RECIPIENT },
        `Show p-1 and pay 25 to ${OWN_IBAN}.`,
        OWN_IBAN,
      );
      expect(interrupts).toEqual([]);
      expect(payments).toHaveLength(1);
      expect(await approvals.pending(['call_pay'], alice)).toEqual([]);
    });

    it("utility: a capability's own confirmation, which the provenance policy allows, keeps its reason and shows provenance", async () => {
      const { interrupts } = await run(
        { payments: { untrustedContext: 'allow' }, confirmPayments: true },
        `Pay 25 to ${OWN_IBAN}.`,
        OWN_IBAN,
      );
      const [shown] = interrupts.map((interrupt) => interrupt.provenance);
      expect(shown).toMatchObject({ untrustedContext: true, arguments: [], untrustedSources: [REVIEWS_SOURCE] });
      expect(interrupts[0]?.reason).toBe('Payments leave your account.');
    });
  });

  describe.each(receiptStoreBackends())('pending() and the stored receipt [%s]', (_engine, open) => {
    let backend: ReceiptStoreBackend;
    beforeAll(async () => {
      backend = await open();
    });
    afterAll(async () => {
      await backend?.close();
    });

    it('lists the pending approval with its provenance, as stored with the receipt', async () => {
      const store = backend.store();
      const { approvals } = await injected({ approvals: store });
      const pending = await approvals.pending(['call_pay'], alice);
      expect(pending.map((entry) => entry.provenance)).toEqual([EXPECTED]);
      expect(JSON.stringify(pending)).not.toMatch(CONTENT);
      // The stored row holds the summary, and no value or untrusted text.
      const challenge = await approvals.challengeForToolCall('call_pay', alice);
      const stored = await store.find(challenge!.receiptId);
      expect(stored?.provenance).toEqual(EXPECTED);
      expect(JSON.stringify(stored)).not.toMatch(CONTENT);
    });
  });

  describe('raw untrusted text, released to the approver', () => {
    it("releases the window's untrusted text to a destination whose route permits it, with release evidence", async () => {
      const { approvals, evidence } = await injected();
      const challenge = (await approvals.challengeForToolCall('call_pay', alice))!;

      const release = await approvals.untrustedContent(challenge.receiptId, STAFF, { destination: APPROVAL_UI }, alice);

      expect(release).toEqual({
        allowed: true,
        destination: 'approval-ui@staff',
        observed: true,
        complete: true,
        items: [
          {
            status: 'released',
            fingerprint: fingerprintString(REVIEWS_TEXT),
            source: REVIEWS_SOURCE,
            text: REVIEWS_TEXT,
            releaseRecordId: expect.any(String),
          },
        ],
      });
      const [released] = release.allowed ? release.items : [];
      const records = evidence.releases();
      expect(records).toEqual([
        expect.objectContaining({
          id: released?.status === 'released' ? released.releaseRecordId : 'none',
          correlationId: fingerprintString(challenge.receiptId),
          sourceKind: 'external',
          sourceName: 'product-reviews',
          destinationConnection: 'approval-ui',
          destinationTrustZone: 'staff',
          trust: 'untrusted',
          disposition: 'permit',
        }),
      ]);
      expect(JSON.stringify(records)).not.toMatch(CONTENT);
      expect(JSON.stringify(records)).not.toContain(challenge.receiptId);
    });

    it('refuses a destination no route leads to: a typed refusal, no text in the result or the evidence', async () => {
      const { approvals, evidence } = await injected();
      const challenge = (await approvals.challengeForToolCall('call_pay', alice))!;

      const release = await approvals.untrustedContent(challenge.receiptId, STAFF, { destination: PARTNER }, alice);

      expect(release).toMatchObject({
        complete: false,
        items: [{ status: 'refused', reason: 'route_not_registered', source: REVIEWS_SOURCE }],
      });
      expect(release.allowed && release.items[0]).not.toHaveProperty('text');
      expect(evidence.releases()).toEqual([
        expect.objectContaining({
          disposition: 'deny',
          reason: 'route_not_registered',
          destinationConnection: 'partner-dashboard',
        }),
      ]);
      expect(JSON.stringify([release, evidence.releases()])).not.toMatch(CONTENT);
    });

    it("refuses when the route's detectors find a class it does not allow (the injected IBAN): no text", async () => {
      const strictRoute = ReleasePolicy.route(REVIEWS, APPROVAL_UI).allow({
        classes: [DataClass.Internal],
        trust: [Trust.Untrusted],
      });
      const { approvals } = await injected({ releasePolicies: [strictRoute] });
      const challenge = (await approvals.challengeForToolCall('call_pay', alice))!;

      const release = await approvals.untrustedContent(challenge.receiptId, STAFF, { destination: APPROVAL_UI }, alice);

      expect(release.allowed && release.items).toEqual([
        expect.objectContaining({ status: 'refused', reason: expect.stringMatching(/^detector_fired:/) }),
      ]);
      expect(JSON.stringify(release)).not.toMatch(CONTENT);
    });

    it('refuses a class the route does not allow', async () => {
      const { approvals } = await injected();
      const challenge = (await approvals.challengeForToolCall('call_pay', alice))!;
      const release = await approvals.untrustedContent(
        challenge.receiptId,
        STAFF,
        {
          destination: APPROVAL_UI,
          classification: DataClass.Sensitive,
        },
        alice,
      );
      expect(release.allowed && release.items).toEqual([
        expect.objectContaining({ status: 'refused', reason: 'class_not_allowed' }),
      ]);
      expect(JSON.stringify(release)).not.toMatch(CONTENT);
    });

    it('says the text is unavailable when another process (which never saw the window) is asked', async () => {
      const shared = new InMemoryApprovalReceiptStore();
      const first = await injected({ approvals: shared });
      const challenge = (await first.approvals.challengeForToolCall('call_pay', alice))!;
      // Another process of the same application: the same capabilities, the same policies; it never saw the window.
      const other = await paymentsFixture({
        payments: CONFIRM_RECIPIENT,
        releasePolicies: [toApprovalUi],
        approvals: shared,
      });

      const release = await other.approvals.untrustedContent(
        challenge.receiptId,
        STAFF,
        { destination: APPROVAL_UI },
        alice,
      );

      expect(release).toEqual({
        allowed: true,
        destination: 'approval-ui@staff',
        observed: true,
        complete: false,
        items: [{ status: 'unavailable', fingerprint: fingerprintString(REVIEWS_TEXT), source: REVIEWS_SOURCE }],
      });
      expect(other.evidence.releases()).toEqual([]);
    });

    it('attack: once the receipt is decided its text is no longer released (nothing is left to decide on)', async () => {
      const { approvals, evidence } = await injected();
      const challenge = (await approvals.challengeForToolCall('call_pay', alice))!;
      expect(await approvals.reject(challenge.receiptId, 'call_pay', 'staff:7')).toMatchObject({ outcome: 'rejected' });

      await expect(
        approvals.untrustedContent(challenge.receiptId, STAFF, { destination: APPROVAL_UI }, alice),
      ).rejects.toThrow(UnknownApprovalReceiptError);
      expect(evidence.releases()).toEqual([]);
    });

    it('rejects an unknown receipt with a typed error, and a request without a destination; nothing is released', async () => {
      const { approvals, evidence } = await injected();
      await expect(
        approvals.untrustedContent('rcpt_unknown', STAFF, { destination: APPROVAL_UI }, alice),
      ).rejects.toThrow(UnknownApprovalReceiptError);
      const challenge = (await approvals.challengeForToolCall('call_pay', alice))!;
      await expect(
        approvals.untrustedContent(challenge.receiptId, STAFF, { destination: 'approval-ui@staff' } as never, alice),
      ).rejects.toThrow(InvalidReleaseRequestError);
      expect(evidence.releases()).toEqual([]);
    });
  });
});
