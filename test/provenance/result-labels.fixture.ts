import { AbilityBuilder, createMongoAbility } from '@casl/ability';
import { HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { MemorySaver } from '@langchain/langgraph';
import { Injectable, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { createAgent } from 'langchain';
import { z } from 'zod';
import {
  ActionContextStore,
  type AuthorizedAction,
  ExecutionTargetPolicy,
  InMemoryApprovalReceiptStore,
  InMemoryEvidenceRecorder,
  type ResultProvenance,
  VerdictModule,
  defineCapability,
  fromContext,
} from '@verdict/nestjs';
import { ProvenanceTrackers, VerdictLangChainModule, VerdictTools } from '@verdict/nestjs/langchain';
import { ScriptedChatModel } from '@verdict/nestjs/testing/langchain';
import { alice } from './payments.fixture.js';

/**
 * A real createAgent loop over two capabilities: `account.view`, whose executor answers `output` (an object,
 * answered as JSON, or a text) and whose results are labelled as `results` declares, and `payments.send`, whose
 * recipient must not come from untrusted content. The scripted model views the account, then pays `recipient`.
 */
export async function viewThenPay(results: ResultProvenance, output: unknown, recipient: string) {
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
  const evidence = new InMemoryEvidenceRecorder();
  @Injectable()
  class AgentTools {
    constructor(
      readonly tools: VerdictTools,
      readonly trackers: ProvenanceTrackers,
    ) {}
  }
  @Module({ imports: [VerdictLangChainModule], providers: [AgentTools] })
  class AgentModule {}
  const moduleRef = await Test.createTestingModule({
    imports: [
      VerdictModule.forRoot({
        abilityFactory,
        evidence,
        publicMessage: 'Not done.',
        capabilities,
        approvals: new InMemoryApprovalReceiptStore(),
      }),
      AgentModule,
    ],
  }).compile();
  await moduleRef.init();
  try {
    const { tools, trackers } = moduleRef.get(AgentTools);
    const boundTools = [
      tools.bound(
        tool(async () => 'never', { name: 'view_account', description: 'Show the account', schema: z.object({}) }),
        'account.view',
      ),
      tools.bound(
        tool(async () => 'never', {
          name: 'send_payment',
          description: 'Send a payment',
          schema: z.object({ recipient: z.string(), amount: z.number() }),
        }),
        'payments.send',
      ),
    ];
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'view_account', args: {}, id: 'call_view' }] },
      { toolCalls: [{ name: 'send_payment', args: { recipient, amount: 25 }, id: 'call_pay' }] },
      { text: 'Done.' },
    ]);
    const agent = createAgent({
      model,
      tools: boundTools,
      checkpointer: new MemorySaver(),
      middleware: [trackers.forAgent().middleware()],
    });
    await moduleRef
      .get(ActionContextStore)
      .run(alice, () =>
        agent.invoke(
          { messages: [new HumanMessage('Pay what my account view says I owe.')] },
          { configurable: { thread_id: `thread-${Math.random()}` } },
        ),
      );
    return { payments, model };
  } finally {
    await moduleRef.close();
  }
}
