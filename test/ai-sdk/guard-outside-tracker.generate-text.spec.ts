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
  type TrackerPlace,
  describeGuardOutsideTracker,
} from '../provenance/guarded-account.fixture.js';
import { alice } from '../provenance/payments.fixture.js';
import { accountCapabilities } from '../provenance/result-labels.fixture.js';
import { scriptedLanguageModel } from './scripted-language-model.js';

/**
 * A real generateText run: view the account (a bound tool whose YAML result is labelled per path), then pay
 * `recipient` (`trusted_only`), with the tracker before or after the model-input guard in `middleware`; the tracker
 * trusts `view_account` as an application tool (`trustedTools`).
 */
async function viewThenPay(recipient: string, place: TrackerPlace) {
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
      place === 'tracker outside'
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

describeGuardOutsideTracker('AI SDK', viewThenPay);
