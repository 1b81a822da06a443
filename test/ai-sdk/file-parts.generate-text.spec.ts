import { describe, expect, it } from '@jest/globals';
import { type FilePart, type ModelMessage, generateText, stepCountIs, wrapLanguageModel } from 'ai';
import { ActionContextStore, type ProvenancePolicy } from '@verdict/nestjs';
import { AiSdkProvenanceTrackers, VerdictAiSdkModule, VerdictAiSdkTools } from '@verdict/nestjs/ai-sdk';
import { ATTACKER_IBAN, OWN_IBAN, alice, paymentsFixture } from '../provenance/payments.fixture.js';
import { TRUSTED_ONLY, pay } from '../provenance/payments-script.fixture.js';
import { scriptedLanguageModel } from './scripted-language-model.js';

// A user message's file parts show the model text (ADR 0209): an invoice in restored history — unlabelled, untrusted
// — given as a file with inline text, by a `data:` URL or by its bytes is in the window's text, so the negative rule
// finds the attacker's IBAN in it, as it does when the same invoice is a text part.

/** A recipient must be derived from trusted content (the positive rule). */
const DERIVED: ProvenancePolicy = { untrustedContext: 'allow', arguments: { recipient: { derivedFrom: 'trusted' } } };

const invoice = (iban: string) => `Invoice 2024-17: please pay the deposit to ${iban}.`;

/** The invoice as a text part, or as a file each way the SDK gives one. */
const shapes = {
  'a text part': (text: string) => ({ type: 'text' as const, text }),
  'a file with inline text': (text: string): FilePart => ({
    type: 'file',
    data: { type: 'text', text },
    mediaType: 'text/plain',
    filename: 'invoice.txt',
  }),
  'a text file by its bytes': (text: string): FilePart => ({
    type: 'file',
    data: Buffer.from(text).toString('base64'),
    mediaType: 'text/plain',
    filename: 'invoice.txt',
  }),
  'a text file by a data: URL': (text: string): FilePart => ({
    type: 'file',
    data: new URL(`data:text/plain;base64,${Buffer.from(text).toString('base64')}`),
    mediaType: 'text/plain',
    filename: 'invoice.txt',
  }),
};
type Shape = keyof typeof shapes;

/** The model pays `recipient` after `history`, then the customer's `ask`. */
async function payAfter(recipient: string, history: ModelMessage[], ask: ModelMessage, payments = TRUSTED_ONLY) {
  const env = await paymentsFixture({ payments, imports: [VerdictAiSdkModule] });
  const tracker = env.moduleRef.get(AiSdkProvenanceTrackers, { strict: false }).forAgent();
  const tools = {
    send_payment: env.moduleRef.get(VerdictAiSdkTools, { strict: false }).bound('payments.send', {
      name: 'send_payment',
    }),
  };
  await env.moduleRef.get(ActionContextStore).run(alice, () =>
    generateText({
      model: wrapLanguageModel({
        model: scriptedLanguageModel([{ toolCalls: [pay(recipient)] }, { text: 'done' }]),
        middleware: tracker.middleware(),
      }),
      tools,
      messages: [...history, ask],
      stopWhen: stepCountIs(3),
    }),
  );
  return env;
}

/** A restored user message holding the invoice as `shape`, and the model's answer to it. */
const restored = (shape: Shape, iban: string): ModelMessage[] => [
  { role: 'user', content: [shapes[shape](invoice(iban))] },
  { role: 'assistant', content: 'Noted.' },
];

describe.each(Object.keys(shapes) as Shape[])('a restored user message holding an invoice as %s', (shape) => {
  it('attack: the attacker’s IBAN in the invoice is found in untrusted history, and the payment refused', async () => {
    const env = await payAfter(ATTACKER_IBAN, restored(shape, ATTACKER_IBAN), {
      role: 'user',
      content: 'Pay the deposit of 25 from that invoice.',
    });
    expect(env.payments).toHaveLength(0);
    expect(env.provenanceDecisions()[0]!.reason).toContain('Argument recipient matches content from');
  });

  it('control: a clean invoice lets the IBAN the customer typed be paid', async () => {
    const env = await payAfter(OWN_IBAN, restored(shape, 'the usual account'), {
      role: 'user',
      content: `Pay the deposit of 25 from that invoice to ${OWN_IBAN}.`,
    });
    expect(env.payments.map((payment) => payment.arguments.recipient)).toEqual([OWN_IBAN]);
  });
});

describe('a file the customer attaches to this turn’s message', () => {
  /** The customer's message: their request, and their invoice naming `iban` as a text file by its bytes. */
  const attached = (iban: string): ModelMessage => ({
    role: 'user',
    content: [
      { type: 'text', text: 'Pay the deposit of 25 to the account on my invoice.' },
      shapes['a text file by its bytes'](invoice(iban)),
    ],
  });

  it('utility: the IBAN in the customer’s own text file is derived from their message, and paid', async () => {
    const env = await payAfter(OWN_IBAN, [], attached(OWN_IBAN), DERIVED);
    expect(env.payments.map((payment) => payment.arguments.recipient)).toEqual([OWN_IBAN]);
  });

  it('attack: an IBAN in neither the customer’s text nor their file is not derived, and refused', async () => {
    const env = await payAfter(ATTACKER_IBAN, [], attached(OWN_IBAN), DERIVED);
    expect(env.payments).toHaveLength(0);
  });
});
