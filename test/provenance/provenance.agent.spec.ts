import { describe, expect, it } from '@jest/globals';
import { HumanMessage } from '@langchain/core/messages';
import { Command, MemorySaver } from '@langchain/langgraph';
import { createAgent } from 'langchain';
import {
  ContextReleaser,
  DataClass,
  Destination,
  ReleasePolicy,
  Source,
  Trust,
  fingerprintString,
  type ProvenancePolicy,
} from '@verdict/nestjs';
import { ModelInputGuard, approveToolCall } from '@verdict/nestjs/langchain';
import { ScriptedChatModel, type ScriptStep } from '@verdict/nestjs/testing/langchain';
import { ATTACKER_IBAN, OWN_IBAN, alice, paymentsFixture, type PaymentsSetup } from './payments.fixture.js';
import { TRUSTED_ONLY } from './payments-script.fixture.js';

const VIEW = { name: 'view_product', args: { productId: 'p-1' }, id: 'call_view' };
const pay = (recipient: string) => ({ name: 'send_payment', args: { recipient, amount: 25 }, id: 'call_pay' });

/** One real createAgent loop: the model reads the product (with its injected review), then pays `recipient`. */
async function run(setup: PaymentsSetup, question: string, recipient: string, readFirst = true) {
  const fixture = await paymentsFixture(setup);
  const script: ScriptStep[] = readFirst
    ? [{ toolCalls: [VIEW] }, { toolCalls: [pay(recipient)] }, { text: 'done' }]
    : [{ toolCalls: [pay(recipient)] }, { text: 'done' }];
  const model = new ScriptedChatModel(script);
  const agent = createAgent({
    model,
    tools: fixture.tools,
    checkpointer: new MemorySaver(),
    middleware: [fixture.trackers.forAgent().middleware()],
  });
  const config = { configurable: { thread_id: `thread-${Math.random()}` } };
  const state = (await fixture.as(() => agent.invoke({ messages: [new HumanMessage(question)] }, config))) as {
    __interrupt__?: { value: unknown }[];
  };
  const resume = (value: unknown) => fixture.as(() => agent.invoke(new Command({ resume: value }), config));
  return { ...fixture, model, state, resume };
}

const CONFIRM_RECIPIENT: ProvenancePolicy = {
  untrustedContext: 'allow',
  arguments: { recipient: 'require_confirmation' },
};

describe('provenance (a real createAgent loop, scripted model, provenance tracker)', () => {
  describe('argument level: recipient trusted_only', () => {
    it('refuses a payment to the IBAN an injected review supplied, naming the path and source, never the value', async () => {
      const { payments, model, provenanceDecisions } = await run(
        { payments: TRUSTED_ONLY },
        'Tell me about product p-1.',
        ATTACKER_IBAN,
      );
      expect(payments).toHaveLength(0);
      expect(model.toolMessages().at(-1)?.content).toBe(
        JSON.stringify({ status: 'not_executed', capability: 'payments.send', decision: 'deny', message: 'Not done.' }),
      );
      const [decision] = provenanceDecisions();
      expect(decision).toMatchObject({ disposition: 'deny' });
      expect(decision!.reason).toContain(
        'Argument recipient matches content from external:product-reviews (untrusted)',
      );
      expect(decision!.reason).not.toContain(ATTACKER_IBAN.toLowerCase());
      expect(JSON.stringify(provenanceDecisions())).not.toMatch(/de89/i);
    });

    it('refuses the injected IBAN also when the model rewrites it in full-width characters with zero-width spaces', async () => {
      const disguised = [...ATTACKER_IBAN].map((c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)).join('\u200b');
      const { payments, provenanceDecisions } = await run({ payments: TRUSTED_ONLY }, 'Show p-1.', disguised);
      expect(payments).toHaveLength(0);
      expect(provenanceDecisions()[0]).toMatchObject({ disposition: 'deny' });
    });

    it("utility: pays the IBAN the customer typed, although the product's reviews were in context", async () => {
      const { payments, provenanceDecisions } = await run(
        { payments: TRUSTED_ONLY },
        `Show me p-1, then pay 25 to ${OWN_IBAN}.`,
        OWN_IBAN,
      );
      expect(payments.map((p) => p.arguments.recipient)).toEqual([OWN_IBAN]);
      expect(provenanceDecisions()[0]).toMatchObject({ disposition: 'permit' });
    });

    it('utility: an IBAN the customer typed passes even when an injected review repeats it', async () => {
      const { payments } = await run({ payments: TRUSTED_ONLY }, `Pay 25 to ${ATTACKER_IBAN} please.`, ATTACKER_IBAN);
      expect(payments).toHaveLength(1);
    });
  });

  describe('context level', () => {
    it('denies a call proposed while untrusted content was in the window (untrustedContext: deny)', async () => {
      const { payments, provenanceDecisions } = await run(
        { payments: { untrustedContext: 'deny' } },
        `Show me p-1, then pay 25 to ${OWN_IBAN}.`,
        OWN_IBAN,
      );
      expect(payments).toHaveLength(0);
      expect(provenanceDecisions()[0]!.reason).toContain('Untrusted content in context: external:product-reviews');
    });

    it('utility: the same call passes when nothing untrusted was read first', async () => {
      const { payments, provenanceDecisions } = await run(
        { payments: { untrustedContext: 'deny' } },
        `Pay 25 to ${OWN_IBAN}.`,
        OWN_IBAN,
        false,
      );
      expect(payments).toHaveLength(1);
      expect(provenanceDecisions()[0]).toMatchObject({ disposition: 'permit' });
    });
  });

  describe('require_confirmation through verified confirmation', () => {
    it('pauses for an approver who reads the provenance summary, and executes once after approval', async () => {
      const { payments, state, approvals, resume } = await run(
        { payments: CONFIRM_RECIPIENT },
        'Tell me about product p-1.',
        ATTACKER_IBAN,
      );
      expect(payments).toHaveLength(0);
      const [interrupt] = (state.__interrupt__ ?? []).map((i) => i.value as { reason: string });
      expect(interrupt?.reason).toBe(
        'Untrusted content in context: external:product-reviews (untrusted). Argument recipient matches content from external:product-reviews (untrusted).',
      );
      const pending = await approvals.pending(['call_pay'], alice);
      expect(pending.map((p) => p.reason)).toEqual([interrupt!.reason]);
      const challenge = await approvals.challengeForToolCall('call_pay', alice);
      await approvals.approve(challenge!.receiptId, 'call_pay', 'customer:alice');
      await resume(approveToolCall('call_pay'));
      expect(payments).toHaveLength(1);
    });

    it("keeps a capability's own confirmation policy and adds the summary to its reason", async () => {
      const { state } = await run(
        { payments: CONFIRM_RECIPIENT, confirmPayments: true },
        'Tell me about product p-1.',
        ATTACKER_IBAN,
      );
      const [interrupt] = (state.__interrupt__ ?? []).map((i) => i.value as { reason: string });
      expect(interrupt?.reason).toMatch(/^Payments leave your account\. Untrusted content in context/);
    });

    it('utility: no confirmation is asked for the customer’s own IBAN', async () => {
      const { payments, state } = await run(
        { payments: CONFIRM_RECIPIENT },
        `Show p-1 and pay 25 to ${OWN_IBAN}.`,
        OWN_IBAN,
      );
      expect(state.__interrupt__ ?? []).toEqual([]);
      expect(payments).toHaveLength(1);
    });
  });

  describe('strict mode', () => {
    it('makes a consequential capability under untrusted influence need confirmation without any policy', async () => {
      const { payments, state } = await run(
        { provenance: { strict: true } },
        'Tell me about product p-1.',
        ATTACKER_IBAN,
      );
      expect(payments).toHaveLength(0);
      expect(state.__interrupt__).toHaveLength(1);
    });

    it("lets the capability's policy say otherwise", async () => {
      const { payments } = await run(
        { provenance: { strict: true }, payments: { untrustedContext: 'allow', arguments: { recipient: 'allow' } } },
        'Tell me about product p-1.',
        ATTACKER_IBAN,
      );
      expect(payments).toHaveLength(1);
    });

    it('utility: a read-only capability is not consequential and runs without confirmation', async () => {
      const { model } = await run({ provenance: { strict: true } }, 'Tell me about product p-1.', OWN_IBAN);
      expect(String(model.toolMessages()[0]?.content)).toContain('Kettle');
    });
  });

  describe('next to the model-input guard', () => {
    it('labels what the guard released, and still refuses the injected recipient', async () => {
      const fixture = await paymentsFixture({ payments: TRUSTED_ONLY });
      const local = Destination.connection('ollama', 'local-machine');
      const catalog = Source.application('catalog');
      const route = { source: catalog, trust: Trust.Untrusted, classification: DataClass.Public };
      const guard = new ModelInputGuard({
        releaser: new ContextReleaser({
          policies: [
            // No PII detectors on this route: provenance, not the guard's detectors, must stop the payment.
            ReleasePolicy.route(catalog, local)
              .allow({ classes: [DataClass.Public], trust: [Trust.Untrusted] })
              .detectWith([]),
          ],
          recorder: fixture.evidence,
        }),
        destination: local,
        toolResults: {
          view_product: { ...route, only: ['name', 'price', 'reviews.*.text'] },
          send_payment: { ...route, only: ['paid'] },
        },
        publicMessage: 'Not done.',
        isCapability: (name) => name === 'payments.send' || name === 'products.view',
      });
      const model = new ScriptedChatModel([{ toolCalls: [VIEW] }, { toolCalls: [pay(ATTACKER_IBAN)] }, { text: 'ok' }]);
      const agent = createAgent({
        model,
        tools: fixture.tools,
        middleware: [fixture.trackers.forAgent().middleware(), guard.middleware()],
      });
      await fixture.as(() =>
        agent.invoke(
          { messages: [new HumanMessage('Tell me about p-1.')] },
          { configurable: { thread_id: 't-guard' } },
        ),
      );
      expect(fixture.payments).toHaveLength(0);
      expect(fixture.evidence.decisions().filter((r) => r.stage === 'provenance')[0]).toMatchObject({
        disposition: 'deny',
      });
      expect(String(model.toolMessages()[0]?.content)).not.toContain('rating');
    });
  });

  describe('ledger', () => {
    it('keeps labels, derivation edges and influences as fingerprints, never content', async () => {
      const { ledger, provenanceDecisions } = await run(
        { payments: TRUSTED_ONLY },
        'Tell me about product p-1.',
        ATTACKER_IBAN,
      );
      const records = ledger.records();
      const text = JSON.stringify(records);
      expect(text).not.toMatch(/de89|kettle|IMPORTANT/i);
      expect(
        records.filter((r) => r.kind === 'label').map((r) => `${r.sourceKind}:${r.sourceName}:${r.trust}`),
      ).toEqual(
        expect.arrayContaining([
          'user:principal:trusted',
          'tool:products.view:trusted',
          'external:product-reviews:untrusted',
        ]),
      );
      const influences = await ledger.forCorrelation(provenanceDecisions()[0]!.correlationId);
      expect(influences.map((r) => r.argumentPathFingerprint)).toEqual(
        expect.arrayContaining([null, fingerprintString('recipient')]),
      );
    });
  });
});
