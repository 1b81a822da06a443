import { describe, expect, it } from '@jest/globals';
import { Agent, Runner, setTracingDisabled } from '@openai/agents';
import { VerdictAgentsModule, VerdictAgentsTools } from '@verdict/nestjs/openai-agents';
import { VerdictAiSdkModule, VerdictAiSdkTools } from '@verdict/nestjs/ai-sdk';
import { generateText, stepCountIs } from 'ai';
import { scriptedLanguageModel } from '../ai-sdk/scripted-language-model.js';
import { ScriptedAgentsModel } from '../openai-agents/scripted-agents-model.js';
import { OWN_IBAN, paymentsFixture } from '../provenance/payments.fixture.js';

// Traces would be exported to OpenAI's platform: nothing leaves the test.
setTracingDisabled(true);

/** One payment the model proposes: 25 to the customer's own IBAN. */
const PAY = { name: 'send_payment', input: { recipient: OWN_IBAN, amount: 25 }, id: 'call_pay' };

/**
 * A payment that requires confirmation, enforced or in shadow mode (`enforce: false`), bound as a tool of the AI SDK
 * or OpenAI Agents. Those runtimes ask whether a call needs approval before they execute it; in shadow mode the
 * confirmation does not stop a run, so the call must run once, recorded `would_confirm`, and no one is asked.
 */
async function paymentsFor(runtime: 'ai-sdk' | 'openai-agents', enforce: boolean | undefined) {
  const fixture = await paymentsFixture({
    payments: { untrustedContext: 'allow' },
    confirmPayments: true,
    enforcePayments: enforce,
    imports: [runtime === 'ai-sdk' ? VerdictAiSdkModule : VerdictAgentsModule],
  });
  /** Runs one turn in which the model proposes the payment; how many times the runtime asked a human. */
  const proposePayment = async (): Promise<number> => {
    if (runtime === 'ai-sdk') {
      const sendPayment = fixture.moduleRef
        .get(VerdictAiSdkTools, { strict: false })
        .bound('payments.send', { name: 'send_payment' });
      const model = scriptedLanguageModel([{ toolCalls: [PAY] }, { text: 'done' }]);
      const result = await fixture.as(() =>
        generateText({
          model,
          tools: { send_payment: sendPayment },
          messages: [{ role: 'user', content: `Pay 25 to ${OWN_IBAN}.` }],
          stopWhen: stepCountIs(4),
        }),
      );
      return result.content.filter((part) => part.type === 'tool-approval-request').length;
    }
    const sendPayment = fixture.moduleRef
      .get(VerdictAgentsTools, { strict: false })
      .bound('payments.send', { name: 'send_payment' });
    const model = new ScriptedAgentsModel([{ toolCalls: [PAY] }, { text: 'done' }]);
    const agent = new Agent({ name: 'Payer', instructions: 'Pay what is asked.', model, tools: [sendPayment] });
    const result = await fixture.as(() => new Runner().run(agent, `Pay 25 to ${OWN_IBAN}.`));
    return result.interruptions.length;
  };
  /** The payment's pipeline runs (one per correlation id), each with its dispositions at stage `approval`. */
  const approvalRuns = () => {
    const runs = new Map<string, string[]>();
    for (const record of fixture.evidence.decisions())
      if (record.capability === 'payments.send') {
        const run = runs.get(record.correlationId) ?? [];
        if (record.stage === 'approval') run.push(record.disposition);
        runs.set(record.correlationId, run);
      }
    return [...runs.values()];
  };
  return { ...fixture, proposePayment, approvalRuns };
}

for (const runtime of ['ai-sdk', 'openai-agents'] as const) {
  describe(`${runtime}: a capability that requires confirmation, in shadow mode`, () => {
    it('attack: the payment runs once, not once for the asking and once for the execution', async () => {
      const env = await paymentsFor(runtime, false);

      const asked = await env.proposePayment();

      expect(env.payments.map((payment) => payment.arguments)).toEqual([{ recipient: OWN_IBAN, amount: 25 }]);
      expect(asked).toBe(0);
      // One pipeline run, whose confirmation steps (proposal and execution) are recorded as shadow records.
      expect(env.approvalRuns()).toEqual([['would_confirm', 'would_confirm']]);
    });

    it('control: enforced, the runtime asks a human and nothing is paid before the approval', async () => {
      const env = await paymentsFor(runtime, undefined);

      const asked = await env.proposePayment();

      expect(asked).toBe(1);
      expect(env.payments).toHaveLength(0);
      expect(env.approvalRuns()).toEqual([['require_confirmation']]);
    });
  });
}
