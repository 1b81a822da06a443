import { describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { generateText, stepCountIs, wrapLanguageModel } from 'ai';
import {
  ActionContextStore,
  InMemoryApprovalReceiptStore,
  InMemoryEvidenceRecorder,
  VerdictModule,
} from '@verdict/nestjs';
import {
  AiSdkModelInputGuards,
  AiSdkProvenanceTrackers,
  VerdictAiSdkModule,
  VerdictAiSdkTools,
} from '@verdict/nestjs/ai-sdk';
import {
  ACCOUNT_ROUTES,
  ACCOUNT_YAML,
  BANK_TO_LOCAL,
  LOCAL,
  SUBJECTS_UNTRUSTED,
} from '../provenance/guarded-account.fixture.js';
import { ATTACKER_IBAN, OWN_IBAN, alice } from '../provenance/payments.fixture.js';
import { accountCapabilities } from '../provenance/result-labels.fixture.js';
import { scriptedLanguageModel } from './scripted-language-model.js';

/**
 * A real generateText run: view the account (a bound tool whose YAML result is labelled per path), then pay
 * `recipient` (`trusted_only`), with the tracker before or after the model-input guard in `middleware`; the tracker
 * trusts `view_account` as an application tool (`trustedTools`).
 */
async function viewThenPay(recipient: string, order: 'tracker first' | 'guard first') {
  const { abilityFactory, capabilities, payments } = accountCapabilities(SUBJECTS_UNTRUSTED, ACCOUNT_YAML);
  const evidence = new InMemoryEvidenceRecorder();
  const moduleRef = await Test.createTestingModule({
    imports: [
      VerdictModule.forRoot({
        abilityFactory,
        evidence,
        publicMessage: 'Not done.',
        capabilities,
        approvals: new InMemoryApprovalReceiptStore(),
        releasePolicies: [BANK_TO_LOCAL],
      }),
      VerdictAiSdkModule,
    ],
  }).compile();
  await moduleRef.init();
  try {
    const bound = moduleRef.get(VerdictAiSdkTools, { strict: false });
    const tools = {
      view_account: bound.bound('account.view', { name: 'view_account' }),
      send_payment: bound.bound('payments.send', { name: 'send_payment' }),
    };
    const guard = moduleRef
      .get(AiSdkModelInputGuards, { strict: false })
      .forDestination(LOCAL, { toolResults: ACCOUNT_ROUTES });
    const tracker = moduleRef
      .get(AiSdkProvenanceTrackers, { strict: false })
      .forAgent({ trustedTools: ['view_account'] });
    const middleware =
      order === 'tracker first'
        ? [tracker.middleware(), guard.middleware()]
        : [guard.middleware(), tracker.middleware()];
    const model = wrapLanguageModel({
      model: scriptedLanguageModel([
        { toolCalls: [{ name: 'view_account', input: {}, id: 'call_view' }] },
        { toolCalls: [{ name: 'send_payment', input: { recipient, amount: 25 }, id: 'call_pay' }] },
        { text: 'Done.' },
      ]),
      middleware,
    });
    await moduleRef.get(ActionContextStore).run(alice, () =>
      generateText({
        model,
        tools,
        messages: [{ role: 'user', content: 'Pay what my account view says I owe.' }],
        stopWhen: stepCountIs(5),
      }),
    );
    const refusals = evidence
      .decisions()
      .filter((record) => record.capability === 'payments.send' && record.disposition === 'deny')
      .map((record) => record.reason);
    return { paid: payments.map((payment) => payment.arguments.recipient), refusals };
  } finally {
    await moduleRef.close();
  }
}

/**
 * A bound tool's result that the guard released before the tracker read it (the guard first in `middleware`) is no
 * unbound tool's result: `trustedTools` naming the tool does not vouch for it. Its declared labels cannot be placed
 * in the released text, so it is untrusted as a whole.
 */
describe('AI SDK: a bound result the guard released before the tracker read it', () => {
  it('attack: with trustedTools naming the bound tool, the IBAN an untrusted transfer subject injects is refused', async () => {
    const run = await viewThenPay(ATTACKER_IBAN, 'guard first');
    expect(run.paid).toEqual([]);
    expect(run.refusals).toEqual([expect.stringContaining('tool:view_account')]);
  });

  it('control: in the documented order (tracker first) the landlord IBAN is paid, the injected one refused', async () => {
    expect((await viewThenPay(OWN_IBAN, 'tracker first')).paid).toEqual([OWN_IBAN]);
    expect((await viewThenPay(ATTACKER_IBAN, 'tracker first')).paid).toEqual([]);
  });
});
