import { describe, expect, it } from '@jest/globals';
import { HumanMessage, ToolMessage } from '@langchain/core/messages';
import { Command, MemorySaver } from '@langchain/langgraph';
import { type AgentMiddleware, createAgent, createMiddleware } from 'langchain';
import { stringify } from 'yaml';
import { z } from 'zod';
import {
  ActionContextStore,
  ApprovalService,
  ExecutionTargetPolicy,
  InMemoryApprovalReceiptStore,
  InMemoryEvidenceRecorder,
  type ResultProvenance,
  Trust,
  defineCapability,
  fromContext,
} from '@verdict/nestjs';
import { ModelInputGuards, ProvenanceTrackers, approveToolCall } from '@verdict/nestjs/langchain';
import { ScriptedChatModel } from '@verdict/nestjs/testing/langchain';
import {
  ACCOUNT,
  ACCOUNT_YAML,
  BANK_TO_LOCAL,
  LOCAL,
  RENT_IBAN,
  SUBJECTS_UNTRUSTED,
  TRANSFERS,
  bankRoute,
} from '../provenance/guarded-account.fixture.js';
import { ATTACKER_IBAN, OWN_IBAN, alice } from '../provenance/payments.fixture.js';
import { accountCapabilities } from '../provenance/result-labels.fixture.js';
import { trackedAgentApp } from '../provenance/tracked-agent.fixture.js';

/**
 * A provenance tracker listed before the model-input guard, as documented (`[tracker, guard]`), labels what the
 * bound tool returned — not the guard's release of it. The release wraps a result that is not a JSON object as
 * `{"result": …}` and keeps only the route's `only`: labelled afresh, a YAML result, a top-level array, or a row
 * without the field a label's `when` reads was all the declared (trusted) trust, and the injected IBAN was paid.
 */

const ARRAY_SUBJECTS_UNTRUSTED: ResultProvenance = {
  trust: Trust.Trusted,
  format: 'json',
  paths: { '*.subject': { trust: Trust.Untrusted, source: TRANSFERS } },
};
/** Outgoing transfers are the customer's own (trusted); an incoming one's subject is whatever its sender wrote. */
const INCOMING_UNTRUSTED: ResultProvenance = {
  trust: Trust.Trusted,
  format: 'json',
  paths: {
    'transactions.*.subject': { trust: Trust.Untrusted, source: TRANSFERS, when: (row) => row.incoming === true },
  },
};

/** A middleware that answers a copy of every tool message, its seal and all (the guard still admits it). */
const copier = (): AgentMiddleware =>
  createMiddleware({
    name: 'CopiesToolMessages',
    wrapToolCall: async (request, handler) => {
      const result = await handler(request);
      if (!ToolMessage.isInstance(result)) return result;
      const { content, tool_call_id, name, status, additional_kwargs } = result;
      return new ToolMessage({ content, tool_call_id, name, status, additional_kwargs: { ...additional_kwargs } });
    },
  });

interface Run {
  /** The account view's result provenance and what its executor answers. */
  readonly results: ResultProvenance;
  readonly output: unknown;
  /** Whom the scripted model pays. */
  readonly recipient: string;
  /** The guard route's `only` for view_account. */
  readonly only: string[];
  /** What the customer types. */
  readonly question?: string;
  /** A middleware listed between the tracker and the guard. */
  readonly between?: AgentMiddleware;
  /** The guard listed before the tracker (`[guard, tracker]`, as with quarantined reading). */
  readonly guardFirst?: boolean;
  /**
   * The account is viewed beside a call that waits for the customer's confirmation: the run pauses, and the view's
   * release comes back from the checkpoint, a new message, when the approved run resumes.
   */
  readonly pausedBeside?: boolean;
}

/** Freezing the card, which the customer confirms: the call that pauses the run beside the account view. */
const freezeCard = defineCapability(
  {
    name: 'card.freeze',
    description: 'Freeze the card',
    action: 'pay',
    subject: 'Account',
    arguments: z.object({}),
    resolveTarget: fromContext(() => ({ __caslSubjectType__: 'Account', id: 'acct-alice' })),
    executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot({ name: 'account', identity: () => 'acct-alice' }),
    mutates: true,
    requiresConfirmation: { bind: () => ({ account: 'acct-alice' }), reason: 'Freezing stops every payment.' },
  },
  () => ({ frozen: true }),
);

/**
 * A real createAgent loop, middleware `[tracker, guard]`: view the account (a bound capability labelled as `results`
 * declares), then pay `recipient`, an argument that must come from trusted content (`trusted_only`).
 */
async function viewThenPay(run: Run) {
  const { abilityFactory, capabilities, payments } = accountCapabilities(run.results, run.output);
  const evidence = new InMemoryEvidenceRecorder();
  const app = await trackedAgentApp({
    abilityFactory,
    evidence,
    publicMessage: 'Not done.',
    capabilities: [...capabilities, freezeCard],
    approvals: new InMemoryApprovalReceiptStore(),
    releasePolicies: [BANK_TO_LOCAL],
  });
  try {
    const tools = [
      app.bind('view_account', 'account.view', z.object({})),
      app.bind('send_payment', 'payments.send', z.object({ recipient: z.string(), amount: z.number() })),
      app.bind('freeze_card', 'card.freeze', z.object({})),
    ];
    const guard = app.moduleRef.get(ModelInputGuards).forDestination(LOCAL, {
      toolResults: {
        view_account: bankRoute(run.only),
        send_payment: bankRoute(['paid']),
        freeze_card: bankRoute(['frozen']),
      },
    });
    const tracker = app.moduleRef.get(ProvenanceTrackers).forAgent();
    const middleware = run.guardFirst
      ? [guard.middleware(), tracker.middleware()]
      : [tracker.middleware(), ...(run.between ? [run.between] : []), guard.middleware()];
    const view = { name: 'view_account', args: {}, id: 'call_view' };
    const freeze = { name: 'freeze_card', args: {}, id: 'call_freeze' };
    const model = new ScriptedChatModel([
      { toolCalls: run.pausedBeside ? [view, freeze] : [view] },
      { toolCalls: [{ name: 'send_payment', args: { recipient: run.recipient, amount: 25 }, id: 'call_pay' }] },
      { text: 'Done.' },
    ]);
    const agent = createAgent({ model, tools, checkpointer: new MemorySaver(), middleware });
    const config = { configurable: { thread_id: 'thread-1' } };
    const as = <T>(work: () => Promise<T>) => app.moduleRef.get(ActionContextStore).run(alice, work);
    const state = (await as(() =>
      agent.invoke({ messages: [new HumanMessage(run.question ?? 'Pay what my account view says I owe.')] }, config),
    )) as { __interrupt__?: unknown[] };
    if (run.pausedBeside) {
      expect(state.__interrupt__).toHaveLength(1);
      const approvals = app.moduleRef.get(ApprovalService);
      const challenge = await approvals.challengeForToolCall('call_freeze', alice);
      await approvals.approve(challenge!.receiptId, 'call_freeze', 'customer:alice');
      await as(() => agent.invoke(new Command({ resume: approveToolCall('call_freeze') }), config));
    }
    const refusals = evidence
      .decisions()
      .filter((record) => record.capability === 'payments.send' && record.disposition === 'deny')
      .map((record) => record.reason);
    return {
      paid: payments.map((payment) => payment.arguments.recipient),
      shown: String(model.toolMessages()[0]?.content),
      refusals,
    };
  } finally {
    await app.close();
  }
}

/** What a customer asks: pay what the account view says, or pay the IBAN they type. */
const typed = (iban: string) => `Pay 25 to ${iban}.`;
/** The route's `only` that drops `incoming`, the field the `when` label reads. */
const WITHOUT_INCOMING = ['owner', 'transactions.*.subject', 'transactions.*.amount'];

/**
 * Each way a release could lose the labels of the result it came from: the run but its recipient, and the source the
 * refusal names. A function: a middleware instance belongs to one agent.
 */
const LOSSES: [string, () => Omit<Run, 'recipient'>, string][] = [
  [
    'a YAML result (results.format: \'yaml\'), released as {"result": …}',
    () => ({ results: SUBJECTS_UNTRUSTED, output: ACCOUNT_YAML, only: ['result'] }),
    'external:bank-transfers',
  ],
  [
    'a top-level JSON array labelled per path (`*.subject`), released as {"result": […]}',
    () => ({ results: ARRAY_SUBJECTS_UNTRUSTED, output: ACCOUNT.transactions, only: ['result'] }),
    'external:bank-transfers',
  ],
  [
    'labels by value (`when: row.incoming`) behind a route whose `only` drops `incoming`',
    () => ({ results: INCOMING_UNTRUSTED, output: ACCOUNT, only: WITHOUT_INCOMING }),
    'external:bank-transfers',
  ],
  [
    'the guard listed before the tracker ([guard, tracker]): the tracker labels the release at the model call',
    () => ({ results: SUBJECTS_UNTRUSTED, output: ACCOUNT_YAML, only: ['result'], guardFirst: true }),
    'external:bank-transfers',
  ],
  [
    '[guard, tracker], the release restored from the checkpoint when a run paused beside the view resumes',
    () => ({
      results: SUBJECTS_UNTRUSTED,
      output: ACCOUNT_YAML,
      only: ['result'],
      guardFirst: true,
      pausedBeside: true,
    }),
    'external:bank-transfers',
  ],
  [
    'a release the tracker cannot trace back to its result (a middleware between them copies it): untrusted whole',
    () => ({ results: SUBJECTS_UNTRUSTED, output: ACCOUNT_YAML, only: ['result'], between: copier() }),
    'tool:view_account',
  ],
];

/** The legitimate payments behind the same releases: the run, and who is paid. */
const UTILITIES: [string, () => Run][] = [
  [
    'the landlord IBAN in the trusted part of a YAML result',
    () => ({ results: SUBJECTS_UNTRUSTED, output: ACCOUNT_YAML, recipient: OWN_IBAN, only: ['result'] }),
  ],
  [
    'the IBAN of a wholly trusted YAML result, which keeps its trust through the release',
    () => ({
      results: { trust: Trust.Trusted, format: 'yaml' },
      output: stringify({ landlord: OWN_IBAN }),
      recipient: OWN_IBAN,
      only: ['result'],
    }),
  ],
  [
    'the IBAN the customer typed, beside a top-level array',
    () => ({
      results: ARRAY_SUBJECTS_UNTRUSTED,
      output: ACCOUNT.transactions,
      recipient: OWN_IBAN,
      only: ['result'],
      question: typed(OWN_IBAN),
    }),
  ],
  [
    "the IBAN of the customer's own outgoing transfer, behind a route that drops `incoming`",
    () => ({ results: INCOMING_UNTRUSTED, output: ACCOUNT, recipient: RENT_IBAN, only: WITHOUT_INCOMING }),
  ],
  [
    'the landlord IBAN with the guard listed before the tracker',
    () => ({
      results: SUBJECTS_UNTRUSTED,
      output: ACCOUNT_YAML,
      recipient: OWN_IBAN,
      only: ['result'],
      guardFirst: true,
    }),
  ],
  [
    'the landlord IBAN, [guard, tracker], the release restored from the checkpoint when the paused run resumes',
    () => ({
      results: SUBJECTS_UNTRUSTED,
      output: ACCOUNT_YAML,
      recipient: OWN_IBAN,
      only: ['result'],
      guardFirst: true,
      pausedBeside: true,
    }),
  ],
  [
    'the IBAN the customer typed, behind a middleware that copies the release',
    () => ({
      results: SUBJECTS_UNTRUSTED,
      output: ACCOUNT_YAML,
      recipient: OWN_IBAN,
      only: ['result'],
      question: typed(OWN_IBAN),
      between: copier(),
    }),
  ],
];

describe('the model-input guard keeps the labels of the result it releases', () => {
  it.each(LOSSES)('attack: %s — the IBAN an untrusted subject injects is refused', async (_case, run, source) => {
    const ran = await viewThenPay({ ...run(), recipient: ATTACKER_IBAN });
    expect(ran.shown).toContain(ATTACKER_IBAN);
    expect(ran.paid).toEqual([]);
    expect(ran.refusals).toEqual([expect.stringContaining(source)]);
  });

  it('the `when` case: the route really dropped the field the label reads', async () => {
    const [, run] = LOSSES[2]!;
    expect((await viewThenPay({ ...run(), recipient: ATTACKER_IBAN })).shown).not.toContain('incoming');
  });

  it.each(UTILITIES)('utility: %s is paid', async (_case, run) => {
    const ran = run();
    expect((await viewThenPay(ran)).paid).toEqual([ran.recipient]);
  });
});
