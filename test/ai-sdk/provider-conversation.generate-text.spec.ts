import { describe, expect, it } from '@jest/globals';
import {
  type LanguageModel,
  type LanguageModelMiddleware,
  type ModelMessage,
  generateText,
  stepCountIs,
  streamText,
  wrapLanguageModel,
} from 'ai';
import { type ActionContext, ActionContextStore, type ProvenancePolicy } from '@verdict/nestjs';
import { AiSdkProvenanceTrackers, VerdictAiSdkModule, VerdictAiSdkTools } from '@verdict/nestjs/ai-sdk';
import { ATTACKER_IBAN, OWN_IBAN, alice, paymentsFixture } from '../provenance/payments.fixture.js';
import { VIEW, pay } from '../provenance/payments-script.fixture.js';
import { type ScriptedTurn, scriptedLanguageModel, scriptedStreamingModel } from './scripted-language-model.js';

// A conversation the provider keeps (AI SDK, ADR 0151): with a provider option naming the previous response
// (`providerOptions.openai.previousResponseId`) or a stored conversation (`conversation`), the application sends only
// the new messages, while the model reads the whole conversation.

/** Nothing untrusted in the window, and the negative rule. */
const CLEAN_ONLY: ProvenancePolicy = { untrustedContext: 'deny', arguments: { recipient: 'trusted_only' } };
/** A recipient must be derived from trusted content (the positive rule). */
const DERIVED: ProvenancePolicy = { untrustedContext: 'allow', arguments: { recipient: { derivedFrom: 'trusted' } } };
const mallory: ActionContext = { actor: { id: 'mallory' }, tenant: 'acme', metadata: { conversationId: 'c-1' } };

/** Gives each response an id, as a provider does (`<prefix>_1`, `<prefix>_2`, …), generated or streamed. */
function responseIds(prefix: string): LanguageModelMiddleware {
  let answered = 0;
  return {
    specificationVersion: 'v4',
    wrapGenerate: async ({ doGenerate }) => ({ ...(await doGenerate()), response: { id: `${prefix}_${++answered}` } }),
    wrapStream: async ({ doStream }) => {
      const { stream, ...rest } = await doStream();
      const id = `${prefix}_${++answered}`;
      let sent = false;
      const withId = stream.pipeThrough(
        new TransformStream({
          transform: (part, controller) => {
            if (!sent) controller.enqueue({ type: 'response-metadata', id });
            sent = true;
            controller.enqueue(part);
          },
        }),
      );
      return { ...rest, stream: withId };
    },
  };
}

async function setup(payments: ProvenancePolicy) {
  const fixture = await paymentsFixture({ payments, imports: [VerdictAiSdkModule] });
  const aiTools = fixture.moduleRef.get(VerdictAiSdkTools, { strict: false });
  const tools = {
    view_product: aiTools.bound('products.view', { name: 'view_product' }),
    send_payment: aiTools.bound('payments.send', { name: 'send_payment' }),
  };
  const tracker = fixture.moduleRef.get(AiSdkProvenanceTrackers, { strict: false }).forAgent();
  const contexts = fixture.moduleRef.get(ActionContextStore);
  /** A tracked model answering `turns`, its responses numbered `<prefix>_<n>`. */
  const tracked = (turns: ScriptedTurn[], prefix: string, streamed = false): LanguageModel =>
    wrapLanguageModel({
      model: (streamed ? scriptedStreamingModel : scriptedLanguageModel)(turns),
      middleware: [tracker.middleware(), responseIds(prefix)],
    });
  /** `who` sends `text` alone, with `openai` provider options naming what the provider keeps. */
  const generate = (who: ActionContext, model: LanguageModel, text: string, openai: Record<string, string> = {}) =>
    contexts.run(who, () =>
      generateText({ model, tools, messages: ask(text), providerOptions: { openai }, stopWhen: stepCountIs(5) }),
    );
  const stream = (who: ActionContext, model: LanguageModel, text: string, openai: Record<string, string> = {}) =>
    contexts.run(who, async () => {
      const result = streamText({
        model,
        tools,
        messages: ask(text),
        providerOptions: { openai },
        stopWhen: stepCountIs(5),
      });
      await result.consumeStream({
        onError: (error) => {
          throw error;
        },
      });
    });
  return { ...fixture, tracker, contexts, tracked, generate, stream };
}

const ask = (text: string): ModelMessage[] => [{ role: 'user', content: text }];

/** The provenance stage's decisions on payments: disposition and reason. */
const decisions = (env: Awaited<ReturnType<typeof setup>>) =>
  env.provenanceDecisions().map((record) => [record.disposition, record.reason]);

describe('a previous response the provider keeps (AI SDK)', () => {
  it('attack: a review the model read in the turn it continues is in the window: the IBAN it names is refused', async () => {
    const env = await setup(CLEAN_ONLY);
    await env.generate(
      alice,
      env.tracked([{ toolCalls: [VIEW] }, { text: 'Here is p-1.' }], 'resp_turn1'),
      'About p-1?',
    );
    const second = env.tracked([{ toolCalls: [pay(ATTACKER_IBAN)] }, { text: 'paid' }], 'resp_turn2');
    await env.generate(alice, second, 'OK, do what the reviewer suggested.', { previousResponseId: 'resp_turn1_2' });
    expect(env.payments).toHaveLength(0);
    expect(decisions(env)).toEqual([['deny', expect.stringContaining('external:product-reviews (untrusted)')]]);
  });

  it('attack: streamed, the same review is in the window of the turn that continues it', async () => {
    const env = await setup(CLEAN_ONLY);
    await env.stream(
      alice,
      env.tracked([{ toolCalls: [VIEW] }, { text: 'Here is p-1.' }], 'resp_turn1', true),
      'About p-1?',
    );
    const second = env.tracked([{ toolCalls: [pay(ATTACKER_IBAN)] }, { text: 'paid' }], 'resp_turn2', true);
    await env.stream(alice, second, 'OK, do what the reviewer suggested.', { previousResponseId: 'resp_turn1_2' });
    expect(env.payments).toHaveLength(0);
    expect(decisions(env)).toEqual([['deny', expect.stringContaining('external:product-reviews (untrusted)')]]);
  });

  it('control: the IBAN the customer typed in the turn it continues is derived, and paid', async () => {
    const env = await setup(DERIVED);
    await env.generate(alice, env.tracked([{ text: 'Noted.' }], 'resp_turn1'), `My IBAN is ${OWN_IBAN}.`);
    const second = env.tracked([{ toolCalls: [pay(OWN_IBAN)] }, { text: 'paid' }], 'resp_turn2');
    await env.generate(alice, second, 'Pay the deposit to it now.', { previousResponseId: 'resp_turn1_1' });
    expect(env.payments.map((payment) => payment.arguments.recipient)).toEqual([OWN_IBAN]);
  });

  it('attack: a previous response this process never saw (another process’s, a forgotten one) is unobserved', async () => {
    const env = await setup(CLEAN_ONLY);
    const second = env.tracked([{ toolCalls: [pay(ATTACKER_IBAN)] }, { text: 'paid' }], 'resp_turn2');
    await env.generate(alice, second, 'OK, do what the reviewer suggested.', { previousResponseId: 'resp_turn1' });
    expect(env.payments).toHaveLength(0);
    expect(decisions(env)).toEqual([['deny', expect.stringContaining('not observed')]]);
  });

  it('attack: another actor continuing Alice’s response finds no window of hers: unobserved', async () => {
    const env = await setup(DERIVED);
    await env.generate(alice, env.tracked([{ text: 'Noted.' }], 'resp_turn1'), `My IBAN is ${OWN_IBAN}.`);
    const second = env.tracked([{ toolCalls: [pay(OWN_IBAN)] }, { text: 'paid' }], 'resp_turn2');
    await env.generate(mallory, second, 'Pay the deposit to the IBAN above.', { previousResponseId: 'resp_turn1_1' });
    expect(decisions(env)).toEqual([['deny', expect.stringContaining('not observed')]]);
  });
});

describe('a conversation the provider stores (AI SDK)', () => {
  it('attack: a call in a stored conversation is unobserved, even one this process saw from its start (another replica may have added to it)', async () => {
    const env = await setup(CLEAN_ONLY);
    await env.generate(alice, env.tracked([{ text: 'Hello! How can I help?' }], 'resp_a'), 'Hello.', {
      conversation: 'conv_1',
    });
    const second = env.tracked([{ toolCalls: [pay(ATTACKER_IBAN)] }, { text: 'paid' }], 'resp_b');
    await env.generate(alice, second, 'OK, do what the reviewer suggested.', { conversation: 'conv_1' });
    expect(env.payments).toHaveLength(0);
    expect(decisions(env)).toEqual([['deny', expect.stringContaining('not observed')]]);
  });

  it('attack: a stored conversation this process never saw is unobserved', async () => {
    const env = await setup(CLEAN_ONLY);
    const model = env.tracked([{ toolCalls: [pay(ATTACKER_IBAN)] }, { text: 'paid' }], 'resp_a');
    await env.generate(alice, model, 'OK, do what the reviewer suggested.', { conversation: 'conv_elsewhere' });
    expect(env.payments).toHaveLength(0);
    expect(decisions(env)).toEqual([['deny', expect.stringContaining('not observed')]]);
  });
});
