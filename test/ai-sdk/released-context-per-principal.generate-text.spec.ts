import { describe, expect, it } from '@jest/globals';
import { type ModelMessage, generateText, stepCountIs, wrapLanguageModel } from 'ai';
import { type ActionContext, ActionContextStore, DataClass, ReleasePolicy, Source, Trust } from '@verdict/nestjs';
import {
  AiSdkModelInputGuards,
  AiSdkProvenanceTrackers,
  VerdictAiSdkModule,
  VerdictAiSdkTools,
} from '@verdict/nestjs/ai-sdk';
import { ATTACKER_IBAN, alice, paymentsFixture } from '../provenance/payments.fixture.js';
import { local, pay } from '../provenance/payments-script.fixture.js';
import { scriptedLanguageModel } from './scripted-language-model.js';

// A trusted label given in one principal's action context vouches in that principal's windows only (ADR 0041,
// docs/provenance.md §1): a guard's `contextMessage` released as trusted in one principal's context too.

/** Another principal (the same actor id in another tenant, whom the fixture lets pay too): the one who released. */
const globex: ActionContext = { actor: { id: 'alice' }, tenant: 'globex', metadata: { conversationId: 'g-1' } };
const crm = Source.application('crm');
/** Trusted public CRM records may reach the local model. */
const crmPolicy = ReleasePolicy.route(crm, local)
  .allow({ classes: [DataClass.Public], trust: [Trust.Trusted] })
  .detectWith([]);

async function setup() {
  const fixture = await paymentsFixture({
    payments: { untrustedContext: 'allow', arguments: { recipient: { derivedFrom: 'trusted' } } },
    releasePolicies: [crmPolicy],
    imports: [VerdictAiSdkModule],
  });
  const aiTools = fixture.moduleRef.get(VerdictAiSdkTools, { strict: false });
  const tools = { send_payment: aiTools.bound('payments.send', { name: 'send_payment' }) };
  const tracker = fixture.moduleRef.get(AiSdkProvenanceTrackers, { strict: false }).forAgent();
  const guard = fixture.moduleRef
    .get(AiSdkModelInputGuards, { strict: false })
    .forDestination(local, { toolResults: {} });
  const contexts = fixture.moduleRef.get(ActionContextStore);
  /** A trusted CRM record naming where refunds go, released in `who`'s context: the message's text. */
  const release = (who: ActionContext) =>
    contexts.run(who, async () => {
      const message = await guard.contextMessage({
        source: crm,
        trust: Trust.Trusted,
        classification: DataClass.Public,
        only: ['refundIban'],
        payload: { refundIban: ATTACKER_IBAN },
      });
      return message.content as string;
    });
  /** `who` continues a history that holds the released record; their model pays its IBAN. */
  const payFromHistory = (who: ActionContext, record: string) => {
    const model = wrapLanguageModel({
      model: scriptedLanguageModel([{ toolCalls: [pay(ATTACKER_IBAN)] }, { text: 'done' }]),
      middleware: tracker.middleware(),
    });
    const history: ModelMessage[] = [
      { role: 'user', content: record },
      { role: 'assistant', content: 'Noted.' },
      { role: 'user', content: 'Please refund me there.' },
    ];
    return contexts.run(who, () => generateText({ model, tools, messages: history, stopWhen: stepCountIs(5) }));
  };
  return { ...fixture, release, payFromHistory };
}

describe('a context released as trusted in one principal’s context vouches in that principal’s windows only', () => {
  it('attack: the record globex’s context released clears no value in Alice’s window', async () => {
    const env = await setup();
    const record = await env.release(globex);
    await env.payFromHistory(alice, record);
    expect(env.payments).toHaveLength(0);
    expect(env.provenanceDecisions()[0]!.reason).toContain('unobserved:history (untrusted)');
  });

  it('control: the same record clears the value in globex’s own window', async () => {
    const env = await setup();
    const record = await env.release(globex);
    await env.payFromHistory(globex, record);
    expect(env.payments.map((payment) => payment.arguments.recipient)).toEqual([ATTACKER_IBAN]);
  });
});
