import { describe, expect, it } from '@jest/globals';
import { Agent, RunState, Runner, setTracingDisabled } from '@openai/agents';
import { readNotExecutedMessage } from '@verdict/nestjs';
import { AgentsProvenanceTrackers, VerdictAgentsModule, VerdictAgentsTools } from '@verdict/nestjs/openai-agents';
import { AiSdkProvenanceTrackers, VerdictAiSdkModule, VerdictAiSdkTools } from '@verdict/nestjs/ai-sdk';
import { type ModelMessage, generateText, stepCountIs, wrapLanguageModel } from 'ai';
import { scriptedLanguageModel } from '../ai-sdk/scripted-language-model.js';
import { ScriptedAgentsModel } from '../openai-agents/scripted-agents-model.js';
import { ATTACKER_IBAN, OWN_IBAN, alice, paymentsFixture } from '../provenance/payments.fixture.js';
import { VIEW, pay } from '../provenance/payments-script.fixture.js';

// Traces would be exported to OpenAI's platform: nothing leaves the test.
setTracingDisabled(true);

/**
 * Payments declare no confirmation of their own: their provenance policy asks a human when the recipient is not
 * derived from trusted content (here, when it comes from an injected product review).
 */
const CONFIRM_UNTRUSTED_RECIPIENT = {
  untrustedContext: 'allow',
  arguments: { recipient: { derivedFrom: 'trusted', otherwise: 'require_confirmation' } },
} as const;

/** What one runtime needs of a paused turn: whether it asked a human, and how to resume it once they decided. */
interface Paused {
  readonly asked: number;
  /** Resumes with the runtime's own approval given; what the payment tool answered the model. */
  readonly resumeApproved: () => Promise<unknown[]>;
}

/**
 * The payments fixture bound to the AI SDK or OpenAI Agents, with the runtime's provenance tracker around the model:
 * `turn(question, recipient)` runs the model reading product p-1 and then paying 25 to `recipient`.
 */
async function paymentsOn(runtime: 'ai-sdk' | 'openai-agents') {
  const fixture = await paymentsFixture({
    payments: CONFIRM_UNTRUSTED_RECIPIENT,
    imports: [runtime === 'ai-sdk' ? VerdictAiSdkModule : VerdictAgentsModule],
  });
  const { moduleRef } = fixture;
  const turn = async (question: string, recipient: string): Promise<Paused> => {
    if (runtime === 'ai-sdk') {
      const aiTools = moduleRef.get(VerdictAiSdkTools, { strict: false });
      const tools = {
        view_product: aiTools.bound('products.view', { name: 'view_product' }),
        send_payment: aiTools.bound('payments.send', { name: 'send_payment' }),
      };
      const tracker = moduleRef.get(AiSdkProvenanceTrackers, { strict: false }).forAgent();
      const generate = (model: ReturnType<typeof scriptedLanguageModel>, messages: ModelMessage[]) =>
        fixture.as(() =>
          generateText({
            model: wrapLanguageModel({ model, middleware: [tracker.middleware()] }),
            tools,
            messages,
            stopWhen: stepCountIs(5),
          }),
        );
      const messages: ModelMessage[] = [{ role: 'user', content: question }];
      const first = await generate(
        scriptedLanguageModel([{ toolCalls: [VIEW] }, { toolCalls: [pay(recipient)] }, { text: 'done' }]),
        messages,
      );
      const requests = first.content.filter((part) => part.type === 'tool-approval-request');
      return {
        asked: requests.length,
        resumeApproved: async () => {
          const model = scriptedLanguageModel([{ text: 'done' }]);
          await generate(model, [
            ...messages,
            ...first.responseMessages,
            {
              role: 'tool',
              content: requests.map((request) => ({
                type: 'tool-approval-response' as const,
                approvalId: request.approvalId,
                approved: true,
              })),
            },
          ]);
          // What the model read as the payment's result once the approved call ran.
          return model.doGenerateCalls[0]!.prompt.flatMap((message) =>
            message.role === 'tool'
              ? message.content.flatMap((part) =>
                  part.type === 'tool-result' && part.toolCallId === 'call_pay'
                    ? [(part.output as { value?: unknown }).value]
                    : [],
                )
              : [],
          );
        },
      };
    }
    const agentsTools = moduleRef.get(VerdictAgentsTools, { strict: false });
    const tracker = moduleRef.get(AgentsProvenanceTrackers, { strict: false }).forAgent();
    const agentOf = (model: ScriptedAgentsModel) =>
      new Agent({
        name: 'Support',
        instructions: 'Help the customer with products and payments.',
        model: tracker.model(model),
        tools: [
          agentsTools.bound('products.view', { name: 'view_product' }),
          agentsTools.bound('payments.send', { name: 'send_payment' }),
        ],
      });
    const first = await fixture.as(() =>
      new Runner().run(
        agentOf(new ScriptedAgentsModel([{ toolCalls: [VIEW] }, { toolCalls: [pay(recipient)] }, { text: 'done' }])),
        question,
      ),
    );
    const serialized = first.state.toString();
    return {
      asked: first.interruptions.length,
      resumeApproved: async () => {
        const agent = agentOf(new ScriptedAgentsModel([{ text: 'done' }]));
        const state = await RunState.fromString(agent, serialized);
        for (const interruption of state.getInterruptions()) state.approve(interruption);
        const resumed = await fixture.as(() => new Runner().run(agent, state));
        return resumed.newItems
          .map((item) => item as unknown as { type: string; rawItem: { callId?: string }; output: unknown })
          .filter((item) => item.type === 'tool_call_output_item' && item.rawItem.callId === 'call_pay')
          .map((item) => item.output);
      },
    };
  };
  /** The payment's pipeline runs (one per correlation id): each run's last disposition and its stage. */
  const paymentRuns = () => {
    const runs = new Map<string, string>();
    for (const record of fixture.evidence.decisions())
      if (record.capability === 'payments.send')
        runs.set(record.correlationId, `${record.stage}:${record.disposition}`);
    return [...runs.values()];
  };
  /** The distinct correlation ids of `records` of the payment. */
  const paymentRunsOf = (records: readonly { capability: string | null; correlationId: string | null }[]) => [
    ...new Set(records.filter((record) => record.capability === 'payments.send').map((r) => r.correlationId)),
  ];
  /** The correlation ids of the payment's pipeline runs, in the evidence. */
  const correlationIds = () => paymentRunsOf(fixture.evidence.decisions());
  /** The correlation ids the provenance ledger's influence records of the payment name. */
  const influencedRuns = () => paymentRunsOf(fixture.ledger.records());
  /** A human decides, in Verdict, the pending receipt of Alice's payment call. */
  const decideInVerdict = async (approve: boolean) => {
    const challenge = await fixture.as(() => fixture.approvals.challengeForToolCall('call_pay', alice));
    expect(challenge).not.toBeNull();
    const decided = approve
      ? await fixture.approvals.approve(challenge!.receiptId, 'call_pay', 'alice')
      : await fixture.approvals.reject(challenge!.receiptId, 'call_pay', 'alice');
    expect(decided).toMatchObject({ outcome: approve ? 'approved' : 'rejected' });
  };
  return { ...fixture, turn, paymentRuns, correlationIds, influencedRuns, decideInVerdict };
}

for (const runtime of ['ai-sdk', 'openai-agents'] as const) {
  describe(`${runtime}: a confirmation only the provenance policy requires`, () => {
    it('asks a human about a recipient taken from an injected review; nothing is paid before the approval', async () => {
      const env = await paymentsOn(runtime);

      const paused = await env.turn('Tell me about product p-1.', ATTACKER_IBAN);

      expect(paused.asked).toBe(1);
      expect(env.payments).toHaveLength(0);
      // One pipeline run of the payment: the asking, stopped at the receipt the human is to decide. The forecast that
      // decided to ask left nothing: the ledger's influence records of the payment are the asking's alone.
      expect(env.paymentRuns()).toEqual(['approval:require_confirmation']);
      expect(env.influencedRuns()).toEqual(env.correlationIds());
      const challenge = await env.as(() => env.approvals.challengeForToolCall('call_pay', alice));
      expect(challenge?.provenance?.untrustedSources.map(({ kind, name }) => `${kind}:${name}`)).toEqual([
        'external:product-reviews',
      ]);
    });

    it('control: approved in Verdict, the payment runs once, as proposed', async () => {
      const env = await paymentsOn(runtime);
      const paused = await env.turn('Tell me about product p-1.', ATTACKER_IBAN);

      await env.decideInVerdict(true);
      const answers = await paused.resumeApproved();

      expect(env.payments.map((payment) => payment.arguments)).toEqual([{ recipient: ATTACKER_IBAN, amount: 25 }]);
      expect(answers).toHaveLength(1);
      expect(readNotExecutedMessage(String(answers[0]))).toBeNull();
    });

    it('attack: the runtime’s approval alone, or one the human rejected in Verdict, pays nothing', async () => {
      for (const decision of [undefined, false]) {
        const env = await paymentsOn(runtime);
        const paused = await env.turn('Tell me about product p-1.', ATTACKER_IBAN);
        if (decision !== undefined) await env.decideInVerdict(decision);

        const answers = await paused.resumeApproved();

        expect(env.payments).toHaveLength(0);
        expect(answers.map((answer) => readNotExecutedMessage(String(answer))?.decision)).toEqual([
          decision === undefined ? 'require_confirmation' : 'deny',
        ]);
      }
    });

    it('control: the IBAN the customer typed is paid without asking, in one pipeline run', async () => {
      const env = await paymentsOn(runtime);

      const paused = await env.turn(`Show me p-1, then pay 25 to ${OWN_IBAN}.`, OWN_IBAN);

      expect(paused.asked).toBe(0);
      expect(env.payments.map((payment) => payment.arguments.recipient)).toEqual([OWN_IBAN]);
      // The forecast that decided not to ask left no evidence: the payment's only run is its execution.
      expect(env.paymentRuns()).toEqual(['execution:permit']);
    });
  });
}
