import { describe, expect, it } from '@jest/globals';
import {
  type BaseMessage,
  HumanMessage,
  ToolMessage,
  mapChatMessagesToStoredMessages,
  mapStoredMessagesToChatMessages,
} from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { MemorySaver } from '@langchain/langgraph';
import { createAgent } from 'langchain';
import { z } from 'zod';
import {
  type ActionContext,
  ActionContextStore,
  type Approver,
  DataClass,
  Destination,
  ProvenanceSource,
  ReleasePolicy,
  Source,
  Trust,
  fingerprintString,
} from '@verdict/nestjs';
import { QuarantinedReaders } from '@verdict/nestjs/langchain';
import { ScriptedChatModel, type ScriptStep } from '@verdict/nestjs/testing/langchain';
import { alice, paymentsFixture } from '../provenance/payments.fixture.js';
import { BILL, BILL_IBAN, billSchema, payTheBill } from './bill.fixture.js';

const BILL_ANSWER = JSON.stringify({ iban: BILL_IBAN, amount: 120 });
/** Another tenant's requester with the same actor id, who may pay too (the payments fixture lets alice pay). */
const globex: ActionContext = { actor: { id: 'alice' }, tenant: 'globex', metadata: { conversationId: 'c-2' } };
const APPROVAL_UI = Destination.connection('approval-ui', 'staff');
const filesToApprovers = ReleasePolicy.route(Source.external('mcp.files'), APPROVAL_UI)
  .allow({ classes: [DataClass.Internal], trust: [Trust.Untrusted] })
  .detectWith([]);
const approverOf = (tenant: string): Approver => ({ id: 'staff:7', context: { actor: { id: '7' }, tenant } });

/** Turn 1: read the bill and extract it, then answer. */
const READ_THE_BILL: ScriptStep[] = [...payTheBill().slice(0, 2), { text: 'I have the bill.' }];
/** Turn 2: pay the value the extraction answered in turn 1 (read from the conversation's history). */
const PAY_IT: ScriptStep[] = [
  (messages) => {
    const extracted = messages.find(
      (message) => ToolMessage.isInstance(message) && message.name === 'quarantine_extract',
    );
    const bill = JSON.parse(String(extracted?.content)) as { iban: string; amount: number };
    return {
      toolCalls: [{ name: 'send_payment', args: { recipient: bill.iban, amount: bill.amount }, id: 'call_pay' }],
    };
  },
  { text: 'Waiting for approval.' },
];

/**
 * One agent (one tracker, one checkpointer) whose payments wait for an approver; its deciding model plays `script`
 * over every turn, and its quarantined model answers the bill.
 */
async function billAgent(script: ScriptStep[]) {
  const app = await paymentsFixture({
    payments: { untrustedContext: 'allow', arguments: { recipient: 'require_confirmation' } },
    releasePolicies: [filesToApprovers],
    quarantine: { model: new ScriptedChatModel([{ text: BILL_ANSWER }], { label: 'quarantined' }) },
  });
  const readFile = tool(async () => BILL, {
    name: 'read_file',
    description: 'Read a file',
    schema: z.object({ path: z.string() }),
  });
  const reading = app.moduleRef.get(QuarantinedReaders).forAgent({ schemas: { bill: billSchema } });
  const tracker = app.trackers.forAgent({ tools: { read_file: ProvenanceSource.mcp('files') } });
  const agent = createAgent({
    model: new ScriptedChatModel(script, { label: 'deciding' }),
    tools: [readFile, ...app.tools],
    checkpointer: new MemorySaver(),
    middleware: [reading.middleware(), tracker.middleware()],
  });
  const contexts = app.moduleRef.get(ActionContextStore);
  /** One turn in `thread` as `requester`: the thread's history, or `history` when given, then `question`. */
  const say = async (
    question: string,
    { thread = 't-1', as = alice, history = [] }: { thread?: string; as?: ActionContext; history?: BaseMessage[] } = {},
  ) =>
    contexts.run(as, () =>
      agent.invoke({ messages: [...history, new HumanMessage(question)] }, { configurable: { thread_id: thread } }),
    );
  /** What the requester's approver is shown of the payment: each text released, in order. */
  const shown = async (requester: ActionContext) => {
    const challenge = (await app.approvals.challengeForToolCall('call_pay', requester))!;
    const release = await app.approvals.untrustedContent(
      challenge.receiptId,
      approverOf(requester.tenant as string),
      { destination: APPROVAL_UI },
      requester,
    );
    return release.allowed ? release.items.map((item) => (item.status === 'released' ? item.text : item.status)) : [];
  };
  /** The fingerprints of the untrusted content the payment's challenge lists. */
  const listed = async (requester: ActionContext) =>
    (await app.approvals.challengeForToolCall('call_pay', requester))!.provenance!.untrustedContent.map(
      (reference) => reference.fingerprint,
    );
  return { ...app, say, shown, listed };
}

describe('the passages of an extraction reach the approver in a later turn of its conversation', () => {
  it('attack: a payment asked for in the next turn shows the approver the passage the value was read from', async () => {
    const app = await billAgent([...READ_THE_BILL, ...PAY_IT]);
    await app.say('Read the bill in bill.txt.');
    await app.say('Now pay it.');

    expect(app.payments).toEqual([]);
    // The value, the passage it was read from; then the model's answer of turn 1, derived from the value (untrusted),
    // which no route releases to the approver.
    expect(await app.shown(alice)).toEqual([BILL_ANSWER, BILL, 'refused']);
  });

  it('control: a payment asked for in the extraction’s own turn shows the passage', async () => {
    const app = await billAgent(payTheBill());
    await app.say('Pay the bill in bill.txt.');

    expect(await app.shown(alice)).toEqual([BILL_ANSWER, BILL]);
  });

  it('attack: another principal whose run has the same thread id finds no passage of this extraction', async () => {
    const app = await billAgent([...READ_THE_BILL, ...PAY_IT]);
    await app.say('Read the bill in bill.txt.');
    await app.say('Now pay it.', { as: globex });

    expect(app.payments).toEqual([]);
    expect(await app.listed(globex)).toContain(fingerprintString(BILL_ANSWER));
    expect(await app.listed(globex)).not.toContain(fingerprintString(BILL));
  });

  it('attack: the same principal’s other thread, holding the same messages, finds no passage of this extraction', async () => {
    const app = await billAgent([...READ_THE_BILL, ...PAY_IT]);
    const first = await app.say('Read the bill in bill.txt.');
    // The application carries the first thread's messages into another thread, as they come back from storage.
    const history = mapStoredMessagesToChatMessages(mapChatMessagesToStoredMessages(first.messages));
    await app.say('Now pay it.', { thread: 't-2', history });

    expect(await app.listed(alice)).toContain(fingerprintString(BILL_ANSWER));
    expect(await app.listed(alice)).not.toContain(fingerprintString(BILL));
  });
});
