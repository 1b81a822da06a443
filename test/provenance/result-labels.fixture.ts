import { AbilityBuilder, createMongoAbility } from '@casl/ability';
import { z } from 'zod';
import {
  type AuthorizedAction,
  ExecutionTargetPolicy,
  InMemoryApprovalReceiptStore,
  InMemoryEvidenceRecorder,
  type ResultProvenance,
  defineCapability,
  fromContext,
} from '@verdict/nestjs';
import { alice } from './payments.fixture.js';
import { trackedAgentApp } from './tracked-agent.fixture.js';

/**
 * `account.view`, whose executor answers `output` (an object, answered as JSON, or a text) and whose results are
 * labelled as `results` declares, and `payments.send`, whose recipient must not come from untrusted content; with
 * an ability to use both. `payments` collects what was paid.
 */
export function accountCapabilities(results: ResultProvenance, output: unknown) {
  const payments: AuthorizedAction<{ recipient: string; amount: number }>[] = [];
  const abilityFactory = {
    createForContext() {
      const { can, build } = new AbilityBuilder(createMongoAbility);
      can('read', 'Account');
      can('pay', 'Account');
      return build();
    },
  };
  const account = { __caslSubjectType__: 'Account', id: 'acct-alice' };
  const common = {
    subject: 'Account',
    resolveTarget: fromContext(() => account),
    executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot({ name: 'account', identity: () => account.id }),
  };
  const capabilities = [
    defineCapability(
      {
        ...common,
        name: 'account.view',
        description: 'Show the account and its transactions',
        action: 'read',
        arguments: z.object({}),
        provenance: { results },
      },
      () => output,
    ),
    defineCapability(
      {
        ...common,
        name: 'payments.send',
        description: 'Send a payment',
        action: 'pay',
        arguments: z.object({ recipient: z.string(), amount: z.number().positive() }),
        mutates: true,
        provenance: { untrustedContext: 'allow', arguments: { recipient: 'trusted_only' } },
      },
      (action) => {
        payments.push(action);
        return { paid: action.arguments.amount };
      },
    ),
  ];
  return { abilityFactory, capabilities, payments };
}

/**
 * A real createAgent loop over the {@link accountCapabilities}: the scripted model views the account, then pays
 * `recipient`.
 */
export async function viewThenPay(results: ResultProvenance, output: unknown, recipient: string) {
  const { abilityFactory, capabilities, payments } = accountCapabilities(results, output);
  const app = await trackedAgentApp({
    abilityFactory,
    evidence: new InMemoryEvidenceRecorder(),
    publicMessage: 'Not done.',
    capabilities,
    approvals: new InMemoryApprovalReceiptStore(),
  });
  try {
    const boundTools = [
      app.bind('view_account', 'account.view', z.object({})),
      app.bind('send_payment', 'payments.send', z.object({ recipient: z.string(), amount: z.number() })),
    ];
    const model = await app.turn(
      alice,
      'Pay what my account view says I owe.',
      [
        { toolCalls: [{ name: 'view_account', args: {}, id: 'call_view' }] },
        { toolCalls: [{ name: 'send_payment', args: { recipient, amount: 25 }, id: 'call_pay' }] },
        { text: 'Done.' },
      ],
      boundTools,
    );
    return { payments, model };
  } finally {
    await app.close();
  }
}
