import { describe, expect, it } from '@jest/globals';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { Agent, type AgentInputItem, Runner, setTracingDisabled } from '@openai/agents';
import { type ActionContext, ActionContextStore, type ProvenancePolicy, Trust } from '@verdict/nestjs';
import { AgentsProvenanceTrackers, VerdictAgentsModule, VerdictAgentsTools } from '@verdict/nestjs/openai-agents';
import { AiSdkProvenanceTrackers, VerdictAiSdkModule, VerdictAiSdkTools } from '@verdict/nestjs/ai-sdk';
import { ScriptedChatModel } from '@verdict/nestjs/testing/langchain';
import { type ModelMessage, generateText, stepCountIs, wrapLanguageModel } from 'ai';
import { createAgent } from 'langchain';
import { scriptedLanguageModel } from '../ai-sdk/scripted-language-model.js';
import { ScriptedAgentsModel } from '../openai-agents/scripted-agents-model.js';
import { ATTACKER_IBAN, OWN_IBAN, alice, paymentsFixture } from '../provenance/payments.fixture.js';
import { TRUSTED_ONLY, VIEW } from '../provenance/payments-script.fixture.js';

// Traces would be exported to OpenAI's platform: nothing leaves the test.
setTracingDisabled(true);

type Runtime = 'langchain' | 'ai-sdk' | 'openai-agents';
type Turn = { toolCalls: { name: string; input: Record<string, unknown>; id: string }[] } | { text: string };
type Fixture = Awaited<ReturnType<typeof paymentsFixture>>;

/**
 * The positive rule: a recipient must occur in trusted content. It does not depend on finding where a value came
 * from, so it holds when the content an injected value came from has left the history.
 */
const DERIVED_FROM_TRUSTED = {
  untrustedContext: 'allow',
  arguments: { recipient: { derivedFrom: 'trusted' } },
} as const;
/**
 * The context rule with the negative rule: no payment while anything untrusted is in the window. Payments answer
 * what they paid, the application's own data (trusted), so a window holding only a payment call and its answer is
 * clean unless the call carries something untrusted.
 */
const CLEAN_CONTEXT: ProvenancePolicy = {
  untrustedContext: 'deny',
  arguments: { recipient: 'trusted_only' },
  results: { trust: Trust.Trusted },
};

/** The model pays 25 to `recipient` with call `id`. */
const pay = (recipient: string, id: string) => ({ name: 'send_payment', input: { recipient, amount: 25 }, id });

/** What a trimming client keeps besides the first payment call and its result: the first message, the last answer. */
interface Keep {
  readonly question: boolean;
  readonly answer: boolean;
}

/** One conversation with an agent on `runtime`: a turn takes the history the client kept and returns it whole. */
interface Chat {
  turn(turns: Turn[], history: readonly unknown[], text: string): Promise<unknown[]>;
  /** What a client keeping the model's context short keeps: from the first payment call on (see {@link Keep}). */
  trimmed(history: readonly unknown[], keep: Keep): unknown[];
}

/** A conversation of `context` with the payments fixture's tools bound to `runtime`, its provenance tracker around the model. */
function chatOn(runtime: Runtime, fixture: Fixture, context: ActionContext): Chat {
  const contexts = fixture.moduleRef.get(ActionContextStore);
  const as = <T>(fn: () => Promise<T>) => contexts.run(context, fn);
  const paysIn = (calls: readonly { name?: string; toolName?: string }[]) =>
    calls.some((call) => (call.name ?? call.toolName) === 'send_payment');
  const fromPayment = <T>(history: readonly T[], isPayment: (item: T) => boolean, keep: Keep) => [
    ...(keep.question ? history.slice(0, 1) : []),
    ...history.slice(history.findIndex(isPayment), keep.answer ? undefined : -1),
  ];
  if (runtime === 'ai-sdk') {
    const aiTools = fixture.moduleRef.get(VerdictAiSdkTools, { strict: false });
    const tools = {
      view_product: aiTools.bound('products.view', { name: 'view_product' }),
      send_payment: aiTools.bound('payments.send', { name: 'send_payment' }),
    };
    const tracker = fixture.moduleRef.get(AiSdkProvenanceTrackers, { strict: false }).forAgent();
    return {
      async turn(turns, history, text) {
        const messages = [...(history as ModelMessage[]), { role: 'user', content: text } as ModelMessage];
        const { responseMessages } = await as(() =>
          generateText({
            model: wrapLanguageModel({ model: scriptedLanguageModel(turns), middleware: [tracker.middleware()] }),
            tools,
            messages,
            stopWhen: stepCountIs(5),
          }),
        );
        return [...messages, ...responseMessages];
      },
      trimmed: (history, keep) =>
        fromPayment(
          history as ModelMessage[],
          (message) =>
            message.role === 'assistant' &&
            typeof message.content !== 'string' &&
            paysIn(message.content.filter((part) => part.type === 'tool-call')),
          keep,
        ),
    };
  }
  if (runtime === 'openai-agents') {
    const agentsTools = fixture.moduleRef.get(VerdictAgentsTools, { strict: false });
    const tracker = fixture.moduleRef.get(AgentsProvenanceTrackers, { strict: false }).forAgent();
    const agentOf = (turns: Turn[]) =>
      new Agent({
        name: 'Support',
        instructions: 'Help the customer with products and payments.',
        model: tracker.model(new ScriptedAgentsModel(turns)),
        tools: [
          agentsTools.bound('products.view', { name: 'view_product' }),
          agentsTools.bound('payments.send', { name: 'send_payment' }),
        ],
      });
    return {
      async turn(turns, history, text) {
        const input = [...(history as AgentInputItem[]), { role: 'user', content: text } as AgentInputItem];
        const result = await as(() => new Runner().run(agentOf(turns), input));
        return result.history;
      },
      trimmed: (history, keep) =>
        fromPayment(
          history as AgentInputItem[],
          (item) => item.type === 'function_call' && paysIn([item as { name?: string }]),
          keep,
        ),
    };
  }
  const agentOf = (turns: Turn[]) =>
    createAgent({
      model: new ScriptedChatModel(
        turns.map((turn) =>
          'toolCalls' in turn
            ? { toolCalls: turn.toolCalls.map(({ name, input, id }) => ({ name, args: input, id })) }
            : turn,
        ),
      ),
      tools: fixture.tools,
      middleware: [fixture.trackers.forAgent().middleware()],
    });
  return {
    async turn(turns, history, text) {
      const messages = [...(history as BaseMessage[]), new HumanMessage(text)];
      const state = (await as(() => agentOf(turns).invoke({ messages }))) as { messages: BaseMessage[] };
      return state.messages;
    },
    // The client keeps the messages as fresh objects (what a store gives back), and runs without a thread id.
    trimmed: (history, keep) =>
      fromPayment(
        history as BaseMessage[],
        (message) => AIMessage.isInstance(message) && paysIn(message.tool_calls ?? []),
        keep,
      ).map((message) =>
        AIMessage.isInstance(message)
          ? new AIMessage({ content: message.content, tool_calls: message.tool_calls })
          : ToolMessage.isInstance(message)
            ? new ToolMessage({ content: message.content, tool_call_id: message.tool_call_id, name: message.name })
            : new HumanMessage({ content: message.content }),
      ),
  };
}

/**
 * Two turns of one conversation under the payments `policy`. In the first turn the model reads product p-1 (its
 * reviews hold an injected IBAN; with `view: false` it reads nothing) and pays `recipient`. Before the second turn
 * the client trims the history: only the first payment call and what follows stay (with `keepQuestion`, also the
 * customer's first message). The second turn asks `again`, and the model proposes the same payment once more,
 * copying the recipient from its own earlier call.
 */
interface Trimming {
  readonly question: string;
  readonly recipient: string;
  readonly again: string;
  readonly keepQuestion?: boolean;
  /** Whether the client keeps the model's last answer of the first turn. Default: `true`. */
  readonly keepAnswer?: boolean;
  readonly view?: boolean;
}

async function firstTurn(chat: Chat, { question, recipient, view = true }: Trimming) {
  const turns: Turn[] = [...(view ? [{ toolCalls: [VIEW] }] : []), { toolCalls: [pay(recipient, 'call_pay')] }];
  return chat.turn([...turns, { text: 'done' }], [], question);
}

async function secondTurn(
  chat: Chat,
  history: readonly unknown[],
  { recipient, again, keepQuestion = false, keepAnswer = true }: Trimming,
) {
  await chat.turn(
    [{ toolCalls: [pay(recipient, 'call_pay_again')] }, { text: 'done' }],
    chat.trimmed(history, { question: keepQuestion, answer: keepAnswer }),
    again,
  );
}

async function payAgainAfterTrimming(runtime: Runtime, policy: ProvenancePolicy, scenario: Trimming) {
  const fixture = await paymentsFixture({
    payments: policy,
    imports: [runtime === 'ai-sdk' ? VerdictAiSdkModule : VerdictAgentsModule],
  });
  const chat = chatOn(runtime, fixture, alice);
  await secondTurn(chat, await firstTurn(chat, scenario), scenario);
  return outcome(fixture);
}

/** What was paid, and the provenance stage's decision on each payment proposal, in order. */
function outcome(fixture: Fixture) {
  const decisions = fixture.provenanceDecisions();
  return {
    payments: fixture.payments.map((payment) => payment.arguments.recipient),
    dispositions: decisions.map((record) => record.disposition),
    reasons: decisions.map((record) => record.reason),
  };
}

const INJECTED = {
  question: 'Tell me about product p-1.',
  recipient: ATTACKER_IBAN,
  again: 'Try that payment again.',
} as const;
const TYPED = { question: `Show me p-1, then pay 25 to ${OWN_IBAN}.`, recipient: OWN_IBAN } as const;

for (const runtime of ['langchain', 'ai-sdk', 'openai-agents'] as const) {
  describe(`${runtime}: a value copied from the model's own call in a trimmed history`, () => {
    describe('the positive rule', () => {
      it('attack: once the injected review is trimmed from the history, its IBAN copied from the refused call is still refused', async () => {
        const { payments, dispositions } = await payAgainAfterTrimming(runtime, DERIVED_FROM_TRUSTED, INJECTED);

        expect(payments).toEqual([]);
        expect(dispositions).toEqual(['deny', 'deny']);
      });

      it('attack: a recipient the model made up in a trusted window is refused again when copied from its own call', async () => {
        const { payments, dispositions } = await payAgainAfterTrimming(runtime, DERIVED_FROM_TRUSTED, {
          question: 'Pay my landlord 25, please.',
          recipient: ATTACKER_IBAN,
          again: 'Try that payment again.',
          view: false,
          keepQuestion: true,
        });

        expect(payments).toEqual([]);
        expect(dispositions).toEqual(['deny', 'deny']);
      });

      it('control: the customer’s own IBAN is paid again while their message that typed it is kept', async () => {
        const { payments, dispositions } = await payAgainAfterTrimming(runtime, DERIVED_FROM_TRUSTED, {
          ...TYPED,
          again: 'Pay the same again, please.',
          keepQuestion: true,
        });

        expect(payments).toEqual([OWN_IBAN, OWN_IBAN]);
        expect(dispositions).toEqual(['permit', 'permit']);
      });

      it('control: with the customer’s message trimmed too, typing the IBAN again pays it', async () => {
        const { payments, dispositions } = await payAgainAfterTrimming(runtime, DERIVED_FROM_TRUSTED, {
          ...TYPED,
          again: `Pay 25 to ${OWN_IBAN} again.`,
        });

        expect(payments).toEqual([OWN_IBAN, OWN_IBAN]);
        expect(dispositions).toEqual(['permit', 'permit']);
      });
    });

    describe('the negative rule (trusted_only)', () => {
      it('attack: the injected IBAN copied from the refused call is refused, naming the review as its source', async () => {
        const { payments, dispositions, reasons } = await payAgainAfterTrimming(runtime, TRUSTED_ONLY, INJECTED);

        expect(payments).toEqual([]);
        expect(dispositions).toEqual(['deny', 'deny']);
        expect(reasons[1]).toContain('Argument recipient matches content from external:product-reviews (untrusted)');
      });

      it('control: the IBAN the customer typed, copied from the paid call once their message is trimmed, is paid again', async () => {
        const { payments, dispositions } = await payAgainAfterTrimming(runtime, TRUSTED_ONLY, {
          ...TYPED,
          again: 'Pay the same again, please.',
        });

        expect(payments).toEqual([OWN_IBAN, OWN_IBAN]);
        expect(dispositions).toEqual(['permit', 'permit']);
      });

      it('control: another conversation’s identical call carries nothing into this one', async () => {
        const fixture = await paymentsFixture({
          payments: TRUSTED_ONLY,
          imports: [runtime === 'ai-sdk' ? VerdictAiSdkModule : VerdictAgentsModule],
        });
        const mine = chatOn(runtime, fixture, alice);
        const other = chatOn(runtime, fixture, { ...alice, metadata: { conversationId: 'c-2' } });
        // In c-2 the customer types the IBAN and it is paid; then, in c-1, the model proposes the same payment with
        // the same call id after reading the injected review (refused); then c-2 goes on, its message trimmed.
        const typed = { question: `Pay 25 to ${ATTACKER_IBAN}.`, recipient: ATTACKER_IBAN, view: false } as const;
        const history = await firstTurn(other, { ...typed, again: '' });
        await firstTurn(mine, INJECTED);
        await secondTurn(other, history, { ...typed, again: 'Pay the same again, please.' });

        const { payments, dispositions } = outcome(fixture);
        expect(dispositions).toEqual(['permit', 'deny', 'permit']);
        expect(payments).toEqual([ATTACKER_IBAN, ATTACKER_IBAN]);
      });
    });

    describe('the context rule', () => {
      it('attack: a history trimmed to the refused call still holds what the review supplied', async () => {
        const { payments, dispositions } = await payAgainAfterTrimming(runtime, CLEAN_CONTEXT, {
          ...INJECTED,
          keepAnswer: false,
        });

        expect(payments).toEqual([]);
        expect(dispositions).toEqual(['deny', 'deny']);
      });

      it('control: a history trimmed to a call the customer asked for is clean, and the payment goes through', async () => {
        const { payments, dispositions } = await payAgainAfterTrimming(runtime, CLEAN_CONTEXT, {
          question: `Pay 25 to ${OWN_IBAN}.`,
          recipient: OWN_IBAN,
          again: 'Pay the same again, please.',
          view: false,
          keepAnswer: false,
        });

        expect(payments).toEqual([OWN_IBAN, OWN_IBAN]);
        expect(dispositions).toEqual(['permit', 'permit']);
      });
    });
  });
}

/** A chat model that answers the given messages in turn, as a provider whose tool calls may not parse. */
class AnsweringModel extends BaseChatModel {
  constructor(private readonly answers: AIMessage[]) {
    super({});
  }

  _llmType(): string {
    return 'answering';
  }

  override bindTools(): this {
    return this;
  }

  async _generate(): Promise<ChatResult> {
    const message = this.answers.shift();
    if (message === undefined) throw new Error('no answer left');
    return { generations: [{ message, text: '' }] };
  }
}

describe('langchain: a call the model wrote that did not parse', () => {
  it('attack: the injected IBAN copied from an invalid call of a trimmed history is refused under trusted_only', async () => {
    const fixture = await paymentsFixture({ payments: TRUSTED_ONLY, imports: [VerdictAgentsModule] });
    const agentOf = (answers: AIMessage[]) =>
      createAgent({
        model: new AnsweringModel(answers),
        tools: fixture.tools,
        middleware: [fixture.trackers.forAgent().middleware()],
      });
    const invalid = {
      name: 'send_payment',
      args: `{"recipient": "${ATTACKER_IBAN}", "amount": 25`,
      id: 'call_bad',
      error: 'Unexpected end of JSON input',
      type: 'invalid_tool_call' as const,
    };
    const first = [
      new AIMessage({
        content: '',
        tool_calls: [{ name: 'view_product', args: { productId: 'p-1' }, id: 'call_view' }],
      }),
      new AIMessage({ content: 'Paying.', invalid_tool_calls: [invalid] }),
    ];
    await fixture.as(() => agentOf(first).invoke({ messages: [new HumanMessage('Tell me about product p-1.')] }));
    // The client keeps only the answer with the call that did not parse, as a fresh message.
    const kept = new AIMessage({ content: 'Paying.', invalid_tool_calls: [invalid] });
    const second = [
      new AIMessage({
        content: '',
        tool_calls: [{ name: 'send_payment', args: { recipient: ATTACKER_IBAN, amount: 25 }, id: 'call_pay' }],
      }),
      new AIMessage({ content: 'done' }),
    ];
    await fixture.as(() => agentOf(second).invoke({ messages: [kept, new HumanMessage('Try that payment again.')] }));

    expect(fixture.payments).toEqual([]);
    const [decision] = fixture.provenanceDecisions();
    expect(decision).toMatchObject({ disposition: 'deny' });
    expect(decision!.reason).toContain('Argument recipient matches content from external:product-reviews (untrusted)');
  });
});
