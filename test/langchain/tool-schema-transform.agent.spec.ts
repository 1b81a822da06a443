import { describe, expect, it } from '@jest/globals';
import { createMongoAbility } from '@casl/ability';
import { HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { Test } from '@nestjs/testing';
import { createAgent } from 'langchain';
import { z } from 'zod';
import {
  type ActionContext,
  ActionContextStore,
  ApplicationFaultError,
  ExecutionTargetPolicy,
  GuardedToolSchemaMismatchError,
  InMemoryEvidenceRecorder,
  VerdictConfigurationError,
  VerdictModule,
  VerdictService,
  defineCapability,
  fromProposal,
} from '@verdict/nestjs';
import { VerdictLangChainModule, VerdictTools, applicationFaultMiddleware } from '@verdict/nestjs/langchain';
import { VerdictAiSdkModule, VerdictAiSdkTools } from '@verdict/nestjs/ai-sdk';
import { VerdictAgentsModule, VerdictAgentsTools } from '@verdict/nestjs/openai-agents';
import { Agent, Runner, setTracingDisabled } from '@openai/agents';
import { generateText, stepCountIs } from 'ai';
import { ScriptedChatModel } from '../../libs/testing/src/scripted-chat-model.js';
import { scriptedLanguageModel } from '../ai-sdk/scripted-language-model.js';
import { ScriptedAgentsModel } from '../openai-agents/scripted-agents-model.js';

// Traces would be exported to OpenAI's platform: nothing leaves the test.
setTracingDisabled(true);

const alice: ActionContext = { actor: { id: 'alice' }, tenant: 'acme', metadata: {} };
const notExecuted = JSON.stringify({
  status: 'not_executed',
  capability: 'orders.refund',
  decision: 'deny',
  message: 'Not done.',
});

/** The model writes euros, at most 1000; the application keeps cents. One schema, as getting-started reuses one. */
const inEuros = z.object({
  orderId: z.number().int(),
  amount: z
    .number()
    .max(1000)
    .transform((euros) => Math.round(euros * 100)),
});
/** The same refund without a transform: the model writes cents. */
const inCents = z.object({ orderId: z.number().int(), amount: z.number().int().max(100_000) });

/**
 * A real `createAgent` loop around a scripted model, with a bound and a guarded tool for `orders.refund`; the tools,
 * the capability and the legacy handler share `schema`, as the getting-started guide writes them.
 */
type RefundSchema = z.ZodType<{ orderId: number; amount: number }, { orderId: number; amount: number }>;

async function refunds(schema: RefundSchema, legacySchema: RefundSchema = schema) {
  const executed: unknown[] = [];
  const handled: unknown[] = [];
  const evidence = new InMemoryEvidenceRecorder();
  const refund = defineCapability(
    {
      name: 'orders.refund',
      description: 'Refund an order',
      action: 'refund',
      subject: 'Order',
      arguments: schema,
      resolveTarget: fromProposal(schema, ({ arguments: args }) => ({ id: args.orderId })),
      executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot({
        name: 'order',
        identity: (order: { id: number }) => order.id,
      }),
    },
    (action) => {
      executed.push(action.arguments);
      return 'refunded';
    },
  );
  const moduleRef = await Test.createTestingModule({
    imports: [
      VerdictModule.forRoot({
        abilityFactory: { createForContext: () => createMongoAbility([{ action: 'refund', subject: 'Order' }]) },
        evidence,
        capabilities: [refund],
        publicMessage: 'Not done.',
      }),
      VerdictLangChainModule,
      VerdictAiSdkModule,
      VerdictAgentsModule,
    ],
  }).compile();
  await moduleRef.init();
  const verdictTools = moduleRef.get(VerdictTools);
  const definition = tool(async () => 'the definition never runs', {
    name: 'refund_order',
    description: 'Refund an order',
    schema,
  });
  const legacy = tool(
    async (args) => {
      handled.push(args);
      return 'legacy refunded';
    },
    { name: 'legacy_refund_order', description: 'Refund an order (legacy handler)', schema: legacySchema },
  );
  /** A legacy tool answering content and an artifact, guarded: the model reads its content, as without Verdict. */
  const withArtifact = tool(
    async (args) => {
      handled.push(args);
      return ['legacy refunded with a receipt', { receipt: 'r-1' }];
    },
    {
      name: 'artifact_refund_order',
      description: 'Refund',
      schema: legacySchema,
      responseFormat: 'content_and_artifact',
    },
  );
  const tools = [
    verdictTools.bound(definition, 'orders.refund'),
    verdictTools.guarded(legacy, 'orders.refund'),
    verdictTools.guarded(withArtifact, 'orders.refund'),
  ];
  const contexts = moduleRef.get(ActionContextStore);
  const run = async (script: ConstructorParameters<typeof ScriptedChatModel>[0]) => {
    const model = new ScriptedChatModel(script);
    const agent = createAgent({
      model,
      tools,
      middleware: [applicationFaultMiddleware()],
    });
    await contexts.run(alice, () => agent.invoke({ messages: [new HumanMessage('refund my order')] }));
    model.assertScriptConsumed();
    return model.toolMessages().map((message) => message.content);
  };
  /** What `VerdictService.execute` hands the executor for the same raw arguments. */
  const serviceExecutes = async (args: unknown) => {
    const before = executed.length;
    await contexts.run(alice, () =>
      moduleRef.get(VerdictService).execute({ capability: 'orders.refund', arguments: args }),
    );
    return executed.splice(before);
  };
  /** The same two calls through the AI SDK's `generateText` and an OpenAI Agents `Runner`: their bound tools. */
  const otherRuntimes = async (amounts: number[]) => {
    const turns = [
      ...amounts.map((amount, i) => ({
        toolCalls: [{ name: 'refund_order', input: { orderId: 1, amount }, id: `call_${i}` }],
      })),
      { text: 'done' },
    ];
    const aiTools = { refund_order: moduleRef.get(VerdictAiSdkTools).bound('orders.refund', { name: 'refund_order' }) };
    await contexts.run(alice, () =>
      generateText({
        model: scriptedLanguageModel(turns),
        tools: aiTools,
        messages: [{ role: 'user', content: 'refund my order' }],
        stopWhen: stepCountIs(5),
      }),
    );
    const viaAiSdk = executed.splice(0);
    const agent = new Agent({
      name: 'Support',
      instructions: 'Help the customer.',
      model: new ScriptedAgentsModel(turns),
      tools: [moduleRef.get(VerdictAgentsTools).bound('orders.refund', { name: 'refund_order' })],
    });
    await contexts.run(alice, () => new Runner().run(agent, 'refund my order'));
    return { viaAiSdk, viaAgents: executed.splice(0) };
  };
  const decisions = () => evidence.decisions().map((r) => `${r.toolKind}:${r.stage}:${r.disposition}`);
  const runDirectly = (args: unknown) =>
    contexts.run(alice, () =>
      tools[1].invoke({ name: 'legacy_refund_order', args, id: 'direct', type: 'tool_call' }).catch((e: unknown) => e),
    );
  /** A wrapped "tool" with a zod schema that is no LangChain StructuredTool: nothing to run without parsing again. */
  const guardBare = () =>
    verdictTools.guarded(
      { name: 'bare', description: 'bare', schema, invoke: async () => 'ran' } as never,
      'orders.refund',
    );
  return {
    run,
    runDirectly,
    guardBare,
    otherRuntimes,
    executed,
    handled,
    serviceExecutes,
    decisions,
    close: () => moduleRef.close(),
  };
}

const call = (name: string, args: Record<string, unknown>, id: string) => ({ toolCalls: [{ name, args, id }] });

describe('a tool schema with a transform, shared by the tool and its capability (ADR 0192)', () => {
  it('bound tool: the executor receives what VerdictService.execute gives for the same raw input', async () => {
    const { run, executed, serviceExecutes, close } = await refunds(inEuros);
    const answers = await run([call('refund_order', { orderId: 1, amount: 5 }, 'b1'), { text: 'done' }]);
    expect(answers).toEqual(['refunded']);
    expect(executed).toEqual([{ orderId: 1, amount: 500 }]);
    expect(executed).toEqual(await serviceExecutes({ orderId: 1, amount: 5 }));
    await close();
  });

  it("bound tool: the schema's limit is checked once, on the model's euros, not on cents", async () => {
    const { run, executed, decisions, close } = await refunds(inEuros);
    const answers = await run([
      call('refund_order', { orderId: 1, amount: 11 }, 'b11'),
      call('refund_order', { orderId: 1, amount: 1001 }, 'b1001'),
      { text: 'done' },
    ]);
    expect(answers).toEqual(['refunded', notExecuted]);
    expect(executed).toEqual([{ orderId: 1, amount: 1100 }]);
    expect(decisions().slice(-1)).toEqual(['bound:proposal:deny']);
    await close();
  });

  it('guarded tool: the handler receives the arguments the pipeline authorized, transformed once', async () => {
    const { run, handled, serviceExecutes, decisions, close } = await refunds(inEuros);
    const answers = await run([
      call('legacy_refund_order', { orderId: 1, amount: 5 }, 'g1'),
      call('legacy_refund_order', { orderId: 1, amount: 11 }, 'g11'),
      { text: 'done' },
    ]);
    expect(answers).toEqual(['legacy refunded', 'legacy refunded']);
    expect(handled).toEqual([
      { orderId: 1, amount: 500 },
      { orderId: 1, amount: 1100 },
    ]);
    expect(handled.slice(0, 1)).toEqual(await serviceExecutes({ orderId: 1, amount: 5 }));
    expect(decisions().filter((d) => d.startsWith('guarded'))).toEqual([
      'guarded:proposal:permit',
      'guarded:proposal:permit',
    ]);
    await close();
  });

  it('guarded tool: a handler whose own schema would make other arguments of the input does not run', async () => {
    // The capability authorizes cents as written; the legacy tool's schema would have turned them into 100x.
    const { runDirectly, handled, decisions, close } = await refunds(inCents, inEuros);
    const error = await runDirectly({ orderId: 1, amount: 5 });
    expect(error).toBeInstanceOf(ApplicationFaultError);
    expect((error as ApplicationFaultError).cause).toBeInstanceOf(GuardedToolSchemaMismatchError);
    expect(handled).toEqual([]);
    expect(decisions()).toEqual(['guarded:proposal:permit']);
    await close();
  });

  it('control: a schema without a transform reaches the executor and the handler as the model wrote it', async () => {
    const { run, executed, handled, close } = await refunds(inCents);
    const answers = await run([
      call('refund_order', { orderId: 2, amount: 700 }, 'c1'),
      call('legacy_refund_order', { orderId: 3, amount: 800 }, 'c2'),
      { text: 'done' },
    ]);
    expect(answers).toEqual(['refunded', 'legacy refunded']);
    expect(executed).toEqual([{ orderId: 2, amount: 700 }]);
    expect(handled).toEqual([{ orderId: 3, amount: 800 }]);
    await close();
  });

  it('control: malformed or over-limit input is still refused at the proposal stage, and recorded', async () => {
    const { run, executed, handled, decisions, close } = await refunds(inEuros);
    const answers = await run([
      call('refund_order', { orderId: 1, amount: 'five' }, 'm1'),
      call('legacy_refund_order', { orderId: 1, amount: 'five' }, 'm2'),
      call('legacy_refund_order', { orderId: 1, amount: 5000 }, 'm3'),
      { text: 'sorry' },
    ]);
    expect(answers).toEqual([notExecuted, notExecuted, notExecuted]);
    expect(executed).toEqual([]);
    expect(handled).toEqual([]);
    expect(decisions()).toEqual(['bound:proposal:deny', 'guarded:proposal:deny', 'guarded:proposal:deny']);
    await close();
  });

  it('control: the AI SDK and OpenAI Agents bound tools already propose the raw input (JSON Schema, no transform)', async () => {
    const { otherRuntimes, serviceExecutes, close } = await refunds(inEuros);
    const once = await serviceExecutes({ orderId: 1, amount: 11 });
    expect(once).toEqual([{ orderId: 1, amount: 1100 }]);
    expect(await otherRuntimes([11])).toEqual({ viaAiSdk: once, viaAgents: once });
    await close();
  });

  it('control: a guarded tool answering content and an artifact answers its content, from the authorized arguments', async () => {
    const { run, handled, close } = await refunds(inEuros);
    const answers = await run([call('artifact_refund_order', { orderId: 4, amount: 2 }, 'a1'), { text: 'done' }]);
    expect(answers).toEqual(['legacy refunded with a receipt']);
    expect(handled).toEqual([{ orderId: 4, amount: 200 }]);
    await close();
  });

  it('refuses to wrap a tool with a zod schema that has no function of its own to run', async () => {
    const { guardBare, close } = await refunds(inEuros);
    expect(guardBare).toThrow(VerdictConfigurationError);
    await close();
  });
});
