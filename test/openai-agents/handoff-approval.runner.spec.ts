import { describe, expect, it } from '@jest/globals';
import { Agent, RunState, Runner, handoff, setTracingDisabled } from '@openai/agents';
import { ActionContextStore, readNotExecutedMessage } from '@verdict/nestjs';
import { VerdictAgentsModule, VerdictAgentsTools } from '@verdict/nestjs/openai-agents';
import { ATTACKER_IBAN, OWN_IBAN, alice, paymentsFixture } from '../provenance/payments.fixture.js';
import { type AgentsTurn, ScriptedAgentsModel } from './scripted-agents-model.js';

// Traces would be exported to OpenAI's platform: nothing leaves the test.
setTracingDisabled(true);

/** The payment the payer proposes: 25 to the IBAN the customer typed. */
const PAY = { name: 'send_payment', input: { recipient: OWN_IBAN, amount: 25 }, id: 'call_pay' };

/** What the SDK answers the model for a call a human rejected (`@openai/agents` 0.20). */
const SDK_REJECTION = 'Tool execution was not approved.';

/** Payments that require confirmation (no provenance policy: the approval alone decides), with the Agents module. */
async function setup() {
  const fixture = await paymentsFixture({ confirmPayments: true, imports: [VerdictAgentsModule] });
  const sendPayment = fixture.moduleRef.get(VerdictAgentsTools, { strict: false }).bound('payments.send', {
    name: 'send_payment',
  });
  const contexts = fixture.moduleRef.get(ActionContextStore);
  /**
   * The application's agents, built afresh as a new request would build them: a triage agent that hands off to a
   * payer agent, which holds the payment tool. Triage hands off (`handsOff`) or has no turn; the payer answers `payer`.
   */
  const agents = ({ handsOff, payer: payerTurns }: { handsOff: boolean; payer: AgentsTurn[] }) => {
    const payerModel = new ScriptedAgentsModel(payerTurns);
    const payer = new Agent({
      name: 'Payer',
      instructions: 'Send the payments the customer asked for.',
      model: payerModel,
      tools: [sendPayment],
    });
    const transfer = handoff(payer);
    const triageModel = new ScriptedAgentsModel(
      handsOff ? [{ toolCalls: [{ name: transfer.toolName, input: {}, id: 'call_handoff' }] }] : [],
    );
    const triage = new Agent({
      name: 'Triage',
      instructions: 'Hand payments to the payer.',
      model: triageModel,
      handoffs: [transfer],
    });
    return { triage, triageModel, payerModel };
  };
  /** A human approves, in Verdict, the pending receipt of Alice's payment call. */
  const approveInVerdict = async () => {
    const challenge = await fixture.approvals.challengeForToolCall(PAY.id, alice);
    expect(challenge).not.toBeNull();
    const transition = await fixture.approvals.approve(challenge!.receiptId, PAY.id, 'alice');
    expect(transition).toMatchObject({ outcome: 'approved' });
  };
  return { ...fixture, contexts, agents, approveInVerdict };
}

type Env = Awaited<ReturnType<typeof setup>>;

/** What the tools answered the model in a run. */
function toolOutputs(result: { newItems: readonly { type: string }[] }): unknown[] {
  return result.newItems
    .filter((item) => item.type === 'tool_call_output_item')
    .map((item) => (item as unknown as { output: unknown }).output);
}

/**
 * Alice's run: triage hands off, the payer proposes the payment, and the run interrupts for approval in the payer.
 * Answers the serialized state, as the application stores it between requests.
 */
async function pauseAfterHandoff(env: Env): Promise<string> {
  const { triage } = env.agents({ handsOff: true, payer: [{ toolCalls: [PAY] }] });
  const result = await env.contexts.run(alice, () => new Runner().run(triage, `Pay 25 to ${OWN_IBAN}.`));
  expect(result.lastAgent?.name).toBe('Payer');
  expect(result.interruptions.map((interruption) => [interruption.agent.name, interruption.name])).toEqual([
    ['Payer', 'send_payment'],
  ]);
  expect(env.payments).toHaveLength(0);
  return result.state.toString();
}

/**
 * A new request: fresh agents and runner, the state restored from the STARTING agent, every interruption decided
 * the SDK's way by `decide`, and the run resumed as Alice.
 */
async function resume(env: Env, serialized: string, decide: 'approve' | 'reject') {
  const fresh = env.agents({ handsOff: false, payer: [{ text: 'paid' }] });
  const state = await RunState.fromString(fresh.triage, serialized);
  const interruptions = state.getInterruptions();
  expect(interruptions.map((interruption) => interruption.agent.name)).toEqual(['Payer']);
  for (const interruption of interruptions) state[decide](interruption);
  const result = await env.contexts.run(alice, () => new Runner().run(fresh.triage, state));
  return { result, outputs: toolOutputs(result), ...fresh };
}

describe('an OpenAI Agents approval interrupted after a handoff, across RunState serialization', () => {
  it('control: restored from the starting agent, approved and resumed, the payer’s call runs once as proposed', async () => {
    const env = await setup();
    const serialized = await pauseAfterHandoff(env);
    await env.approveInVerdict();

    const { result, outputs, triageModel, payerModel } = await resume(env, serialized, 'approve');

    expect(env.payments.map((payment) => payment.arguments)).toEqual([{ recipient: OWN_IBAN, amount: 25 }]);
    expect(env.payments[0]!.context.actor).toEqual(alice.actor);
    expect(outputs).toEqual([JSON.stringify({ paid: 25 })]);
    expect(result.lastAgent?.name).toBe('Payer');
    expect(result.finalOutput).toBe('paid');
    // The resumed run continued in the payer, which read the payment's answer; triage was not asked again.
    expect(triageModel.requests).toHaveLength(0);
    expect(JSON.stringify(payerModel.requests[0]!.input)).toContain(JSON.stringify(JSON.stringify({ paid: 25 })));
  });

  it('attack: arguments edited in the stored state after the handoff never run, although the human approved', async () => {
    const env = await setup();
    const serialized = await pauseAfterHandoff(env);
    await env.approveInVerdict();
    const escaped = (input: object) => JSON.stringify(JSON.stringify(input)).slice(1, -1);
    const edited = { recipient: ATTACKER_IBAN, amount: 2500 };
    const changed = serialized.split(escaped(PAY.input)).join(escaped(edited));
    expect(changed).not.toBe(serialized);
    expect(changed).not.toContain(escaped(PAY.input));

    const { outputs } = await resume(env, changed, 'approve');

    expect(env.payments.map((payment) => payment.arguments)).not.toContainEqual(edited);
    expect(env.payments).toHaveLength(0);
    expect(outputs).toHaveLength(1);
    expect(readNotExecutedMessage(outputs[0] as string)?.decision).toBe('require_confirmation');
  });

  it('attack: a call rejected the SDK’s way after the handoff never runs, although Verdict’s receipt was approved', async () => {
    const env = await setup();
    const serialized = await pauseAfterHandoff(env);
    await env.approveInVerdict();

    const { result, outputs } = await resume(env, serialized, 'reject');

    expect(env.payments).toHaveLength(0);
    expect(outputs).toEqual([SDK_REJECTION]);
    expect(result.lastAgent?.name).toBe('Payer');
  });
});
