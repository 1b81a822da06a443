import { Test } from '@nestjs/testing';
import { Agent, type Model, Runner, setTracingDisabled } from '@openai/agents';
import {
  ActionContextStore,
  InMemoryApprovalReceiptStore,
  InMemoryEvidenceRecorder,
  VerdictModule,
} from '@verdict/nestjs';
import {
  AgentsModelInputGuards,
  AgentsProvenanceTrackers,
  VerdictAgentsModule,
  VerdictAgentsTools,
} from '@verdict/nestjs/openai-agents';
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
import { ScriptedAgentsModel } from './scripted-agents-model.js';

setTracingDisabled(true);

/**
 * A real Runner run: view the account (a bound tool whose YAML result is labelled per path), then pay `recipient`
 * (`trusted_only`), with the tracker inside or outside the model-input guard; the tracker trusts `view_account` as an
 * application tool (`trustedTools`).
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
      VerdictAgentsModule,
    ],
  }).compile();
  await moduleRef.init();
  try {
    const tools = moduleRef.get(VerdictAgentsTools, { strict: false });
    const guard = moduleRef
      .get(AgentsModelInputGuards, { strict: false })
      .forDestination(LOCAL, { toolResults: ACCOUNT_ROUTES, systemPrompts: ['Help.'] });
    const tracker = moduleRef
      .get(AgentsProvenanceTrackers, { strict: false })
      .forAgent({ trustedTools: ['view_account'] });
    const base = new ScriptedAgentsModel([
      { toolCalls: [{ name: 'view_account', input: {}, id: 'call_view' }] },
      { toolCalls: [{ name: 'send_payment', input: { recipient, amount: 25 }, id: 'call_pay' }] },
      { text: 'Done.' },
    ]);
    const model: Model =
      place === 'tracker outside' ? tracker.model(guard.model(base)) : guard.model(tracker.model(base));
    const agent = new Agent({
      name: 'Support',
      instructions: 'Help.',
      model,
      tools: [
        tools.bound('account.view', { name: 'view_account' }),
        tools.bound('payments.send', { name: 'send_payment' }),
      ],
    });
    await moduleRef
      .get(ActionContextStore)
      .run(alice, () => new Runner().run(agent, 'Pay what my account view says I owe.'));
    const refusals = evidence
      .decisions()
      .filter((record) => record.capability === 'payments.send' && record.disposition === 'deny')
      .map((record) => record.reason);
    return { paid: payments.map((payment) => payment.arguments.recipient), refusals };
  } finally {
    await moduleRef.close();
  }
}

describeGuardOutsideTracker('OpenAI Agents', viewThenPay);
