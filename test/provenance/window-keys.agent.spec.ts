import { describe, expect, it } from '@jest/globals';
import { HumanMessage } from '@langchain/core/messages';
import { Command, MemorySaver } from '@langchain/langgraph';
import { createAgent } from 'langchain';
import { type ActionContext, ActionContextStore, type ProvenancePolicy } from '@verdict/nestjs';
import { approveToolCall } from '@verdict/nestjs/langchain';
import { ScriptedChatModel, type ScriptStep } from '@verdict/nestjs/testing/langchain';
import { ATTACKER_IBAN, OWN_IBAN, alice, paymentsFixture } from './payments.fixture.js';

const VIEW = { name: 'view_product', args: { productId: 'p-1' }, id: 'call_view' };
const pay = (recipient: string) => ({ name: 'send_payment', args: { recipient, amount: 25 }, id: 'call_pay' });
const CONFIRM_RECIPIENT: ProvenancePolicy = {
  untrustedContext: 'allow',
  arguments: { recipient: 'require_confirmation' },
};
const mallory: ActionContext = { actor: { id: 'mallory' }, tenant: 'acme', metadata: { conversationId: 'c-9' } };

/**
 * The window a resumed tool call runs in is found by the thread and the call id. Both are the caller's choice (a
 * client's thread id, a provider's predictable call id): another principal that runs in the same thread id must not
 * leave the window a paused call of Alice's resumes in.
 */
describe('windows of resumed calls belong to the principal (real createAgent loops, one module)', () => {
  async function setup() {
    const fixture = await paymentsFixture({ payments: CONFIRM_RECIPIENT });
    const contexts = fixture.moduleRef.get(ActionContextStore);
    const thread = `thread-${Math.random()}`;
    const agentOf = (script: ScriptStep[]) =>
      createAgent({
        model: new ScriptedChatModel(script),
        tools: fixture.tools,
        checkpointer: new MemorySaver(),
        middleware: [fixture.trackers.forAgent().middleware()],
      });
    // Alice reads the product (the injected review), and the model proposes the attacker's IBAN: it waits for a human.
    const victim = agentOf([{ toolCalls: [VIEW] }, { toolCalls: [pay(ATTACKER_IBAN)] }, { text: 'done' }]);
    const config = { configurable: { thread_id: thread } };
    const paused = (await contexts.run(alice, () =>
      victim.invoke({ messages: [new HumanMessage('Tell me about product p-1.')] }, config),
    )) as { __interrupt__?: unknown[] };
    const resumeWith = (value: unknown) =>
      contexts.run(alice, () => victim.invoke(new Command({ resume: value }), config));
    const resume = () => resumeWith({});
    const proposeAs = (context: ActionContext, recipient: string) =>
      contexts.run(context, () =>
        agentOf([{ toolCalls: [pay(recipient)] }, { text: 'done' }]).invoke(
          { messages: [new HumanMessage(`Pay 25 to ${recipient}.`)] },
          config,
        ),
      );
    return { ...fixture, paused, resume, resumeWith, proposeAs };
  }

  it("attack: another actor's trusted proposal with the same thread and call id does not clear Alice's paused payment", async () => {
    const { payments, paused, resume, proposeAs } = await setup();
    expect(paused.__interrupt__).toHaveLength(1);
    await proposeAs(mallory, ATTACKER_IBAN);
    await resume();
    expect(payments).toHaveLength(0);
  });

  it("attack: Alice's own trusted proposal of other arguments, same call id, does not clear the paused payment", async () => {
    const { payments, resume, proposeAs } = await setup();
    await proposeAs(alice, OWN_IBAN);
    expect(payments.map((p) => p.arguments.recipient)).toEqual([OWN_IBAN]);
    await resume();
    expect(payments.map((p) => p.arguments.recipient)).toEqual([OWN_IBAN]);
  });

  it("utility: Alice's paused payment, approved by a human, resumes in its own window and pays once", async () => {
    const { payments, paused, approvals, proposeAs, resumeWith } = await setup();
    expect(paused.__interrupt__).toHaveLength(1);
    await proposeAs(mallory, ATTACKER_IBAN);
    const challenge = await approvals.challengeForToolCall('call_pay', alice);
    await approvals.approve(challenge!.receiptId, 'call_pay', 'customer:alice');
    await resumeWith(approveToolCall('call_pay'));
    expect(payments.map((p) => p.arguments.recipient)).toEqual([ATTACKER_IBAN]);
  });
});

describe('the conversation a LangChain run keeps its windows under', () => {
  it('a malformed conversation id stops the run before the model is called; control: a well-formed one runs', async () => {
    const fixture = await paymentsFixture();
    const contexts = fixture.moduleRef.get(ActionContextStore);
    const run = async (conversationId: unknown) => {
      let calls = 0;
      const model = new ScriptedChatModel([
        () => {
          calls += 1;
          return { text: 'Hello.' };
        },
      ]);
      const agent = createAgent({
        model,
        tools: fixture.tools,
        middleware: [fixture.trackers.forAgent().middleware()],
      });
      const outcome = await contexts
        .run({ ...alice, metadata: { conversationId } }, () => agent.invoke({ messages: [new HumanMessage('Hi')] }))
        .then(
          () => 'answered',
          // LangChain wraps a middleware's error; its cause is Verdict's.
          (error: { cause?: unknown }) => (error.cause as Error).constructor.name,
        );
      return { outcome, calls };
    };

    expect(await run(' ')).toEqual({ outcome: 'VerdictConfigurationError', calls: 0 });
    expect(await run('c-7')).toEqual({ outcome: 'answered', calls: 1 });
  });
});
