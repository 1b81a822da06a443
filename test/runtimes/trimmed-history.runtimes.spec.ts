import { describe, expect, it } from '@jest/globals';
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { Agent, type AgentInputItem, Runner, setTracingDisabled } from '@openai/agents';
import { AgentsProvenanceTrackers, VerdictAgentsModule, VerdictAgentsTools } from '@verdict/nestjs/openai-agents';
import { AiSdkProvenanceTrackers, VerdictAiSdkModule, VerdictAiSdkTools } from '@verdict/nestjs/ai-sdk';
import { ScriptedChatModel } from '@verdict/nestjs/testing/langchain';
import { type ModelMessage, generateText, stepCountIs, wrapLanguageModel } from 'ai';
import { createAgent } from 'langchain';
import { scriptedLanguageModel } from '../ai-sdk/scripted-language-model.js';
import { ScriptedAgentsModel } from '../openai-agents/scripted-agents-model.js';
import { ATTACKER_IBAN, OWN_IBAN, paymentsFixture } from '../provenance/payments.fixture.js';
import { VIEW } from '../provenance/payments-script.fixture.js';

// Traces would be exported to OpenAI's platform: nothing leaves the test.
setTracingDisabled(true);

type Runtime = 'langchain' | 'ai-sdk' | 'openai-agents';

/**
 * The positive rule: a recipient must occur in trusted content. It does not depend on finding where a value came
 * from, so it holds when the content an injected value came from has left the history (docs/provenance.md §5: the
 * negative rule, `trusted_only`, cannot see a value the model copies from its own earlier call once that content
 * is gone).
 */
const DERIVED_FROM_TRUSTED = {
  untrustedContext: 'allow',
  arguments: { recipient: { derivedFrom: 'trusted' } },
} as const;

/** The model pays 25 to `recipient` with call `id`. */
const pay = (recipient: string, id: string) => ({ name: 'send_payment', input: { recipient, amount: 25 }, id });

/**
 * Two turns of one conversation, with the payments fixture (a recipient must occur in trusted content) bound
 * to `runtime` and its provenance tracker around the model. In the first turn the model reads product p-1 (its
 * reviews hold an injected IBAN) and pays `recipient`. Before the second turn the client trims the history, as a
 * client keeping a model's context short does: only the first turn's payment call and its answer stay (or, with
 * `keepQuestion`, also the customer's first message). The second turn asks `again`, and the model proposes the same
 * payment once more, copying the recipient from its own earlier call.
 */
async function payAgainAfterTrimming(
  runtime: Runtime,
  {
    question,
    recipient,
    again,
    keepQuestion = false,
  }: { question: string; recipient: string; again: string; keepQuestion?: boolean },
) {
  const fixture = await paymentsFixture({
    payments: DERIVED_FROM_TRUSTED,
    imports: [runtime === 'ai-sdk' ? VerdictAiSdkModule : VerdictAgentsModule],
  });
  type Turn = { toolCalls: { name: string; input: Record<string, unknown>; id: string }[] } | { text: string };
  const first: Turn[] = [{ toolCalls: [VIEW] }, { toolCalls: [pay(recipient, 'call_pay')] }, { text: 'done' }];
  const second: Turn[] = [{ toolCalls: [pay(recipient, 'call_pay_again')] }, { text: 'done' }];
  if (runtime === 'ai-sdk') {
    const aiTools = fixture.moduleRef.get(VerdictAiSdkTools, { strict: false });
    const tools = {
      view_product: aiTools.bound('products.view', { name: 'view_product' }),
      send_payment: aiTools.bound('payments.send', { name: 'send_payment' }),
    };
    const tracker = fixture.moduleRef.get(AiSdkProvenanceTrackers, { strict: false }).forAgent();
    const generate = (turns: typeof first, messages: ModelMessage[]) =>
      fixture.as(() =>
        generateText({
          model: wrapLanguageModel({ model: scriptedLanguageModel(turns), middleware: [tracker.middleware()] }),
          tools,
          messages,
          stopWhen: stepCountIs(5),
        }),
      );
    const asked: ModelMessage = { role: 'user', content: question };
    const { responseMessages } = await generate(first, [asked]);
    const payment = responseMessages.findIndex(
      (message) =>
        message.role === 'assistant' &&
        typeof message.content !== 'string' &&
        message.content.some((part) => part.type === 'tool-call' && part.toolName === 'send_payment'),
    );
    const kept = [...(keepQuestion ? [asked] : []), ...responseMessages.slice(payment)];
    await generate(second, [...kept, { role: 'user', content: again }]);
  } else if (runtime === 'openai-agents') {
    const agentsTools = fixture.moduleRef.get(VerdictAgentsTools, { strict: false });
    const tracker = fixture.moduleRef.get(AgentsProvenanceTrackers, { strict: false }).forAgent();
    const agentOf = (turns: typeof first) =>
      new Agent({
        name: 'Support',
        instructions: 'Help the customer with products and payments.',
        model: tracker.model(new ScriptedAgentsModel(turns)),
        tools: [
          agentsTools.bound('products.view', { name: 'view_product' }),
          agentsTools.bound('payments.send', { name: 'send_payment' }),
        ],
      });
    const { history } = await fixture.as(() => new Runner().run(agentOf(first), question));
    const payment = history.findIndex(
      (item) => item.type === 'function_call' && (item as { name?: string }).name === 'send_payment',
    );
    const kept: AgentInputItem[] = [
      ...(keepQuestion ? [{ role: 'user', content: question } as AgentInputItem] : []),
      ...history.slice(payment),
    ];
    await fixture.as(() => new Runner().run(agentOf(second), [...kept, { role: 'user', content: again }]));
  } else {
    const langChainTurns = (turns: typeof first) =>
      turns.map((turn) =>
        'toolCalls' in turn
          ? { toolCalls: turn.toolCalls.map(({ name, input, id }) => ({ name, args: input, id })) }
          : turn,
      );
    const agentOf = (turns: typeof first) =>
      createAgent({
        model: new ScriptedChatModel(langChainTurns(turns)),
        tools: fixture.tools,
        middleware: [fixture.trackers.forAgent().middleware()],
      });
    const asked = new HumanMessage(question);
    const { messages } = (await fixture.as(() => agentOf(first).invoke({ messages: [asked] }))) as {
      messages: BaseMessage[];
    };
    const payment = messages.findIndex(
      (message) => AIMessage.isInstance(message) && (message.tool_calls ?? []).some((c) => c.name === 'send_payment'),
    );
    // The client keeps the payment call and its answer, as fresh messages (what a store would give back).
    const kept = messages
      .slice(payment)
      .map((message) =>
        AIMessage.isInstance(message)
          ? new AIMessage({ content: message.content, tool_calls: message.tool_calls })
          : ToolMessage.isInstance(message)
            ? new ToolMessage({ content: message.content, tool_call_id: message.tool_call_id, name: message.name })
            : new AIMessage({ content: message.content }),
      );
    await fixture.as(() =>
      agentOf(second).invoke({
        messages: [...(keepQuestion ? [new HumanMessage(question)] : []), ...kept, new HumanMessage(again)],
      }),
    );
  }
  /** The provenance stage's disposition for each payment proposal, in order. */
  const dispositions = fixture.provenanceDecisions().map((record) => record.disposition);
  return { payments: fixture.payments.map((payment) => payment.arguments.recipient), dispositions };
}

for (const runtime of ['langchain', 'ai-sdk', 'openai-agents'] as const) {
  describe(`${runtime}: a trimmed history and the positive rule`, () => {
    it('attack: once the injected review is trimmed from the history, its IBAN copied from the refused call is still refused', async () => {
      const { payments, dispositions } = await payAgainAfterTrimming(runtime, {
        question: 'Tell me about product p-1.',
        recipient: ATTACKER_IBAN,
        again: 'Try that payment again.',
      });

      expect(payments).toEqual([]);
      expect(dispositions).toEqual(['deny', 'deny']);
    });

    it('control: the customer’s own IBAN is paid again while their message that typed it is kept', async () => {
      const { payments, dispositions } = await payAgainAfterTrimming(runtime, {
        question: `Show me p-1, then pay 25 to ${OWN_IBAN}.`,
        recipient: OWN_IBAN,
        again: 'Pay the same again, please.',
        keepQuestion: true,
      });

      expect(payments).toEqual([OWN_IBAN, OWN_IBAN]);
      expect(dispositions).toEqual(['permit', 'permit']);
    });

    it('control: with the customer’s message trimmed too, typing the IBAN again pays it', async () => {
      const { payments, dispositions } = await payAgainAfterTrimming(runtime, {
        question: `Show me p-1, then pay 25 to ${OWN_IBAN}.`,
        recipient: OWN_IBAN,
        again: `Pay 25 to ${OWN_IBAN} again.`,
      });

      expect(payments).toEqual([OWN_IBAN, OWN_IBAN]);
      expect(dispositions).toEqual(['permit', 'permit']);
    });
  });
}
