import { afterEach, describe, expect, it } from '@jest/globals';
import { HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { Command, MemorySaver } from '@langchain/langgraph';
import { createAgent } from 'langchain';
import { z } from 'zod';
import { type ApprovalBatchItemDecision, InMemoryApprovalReceiptStore } from '@verdict/nestjs';
import {
  type ApprovalBatchInterrupt,
  applicationFaultMiddleware,
  approveToolCall,
  resumeApprovalBatch,
} from '@verdict/nestjs/langchain';
import { ScriptedChatModel } from '../../libs/testing/src/scripted-chat-model.js';
import { alice, batchFixture, support } from './batch.fixture.js';

const call = (n: number, id = n) => ({ name: 'archive_document', args: { id }, id: `call_${n}` });
const TURN = [call(1), call(2), call(3)];

const opened: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((f) => f.close()));
});

async function setup(turns = [{ toolCalls: TURN }, { text: 'done' }]) {
  const fixture = await batchFixture(new InMemoryApprovalReceiptStore());
  opened.push(fixture);
  const definition = tool(async () => 'definition handler must not run', {
    name: 'archive_document',
    description: 'Archive a document',
    schema: z.object({ id: z.number().int() }),
  });
  const model = new ScriptedChatModel(turns);
  const agent = createAgent({
    model,
    tools: [fixture.tools.bound(definition, 'documents.archive')],
    checkpointer: new MemorySaver(),
    middleware: [applicationFaultMiddleware(), fixture.middleware()],
  });
  const config = { configurable: { thread_id: `thread-${Math.random()}` } };
  type State = { __interrupt__?: { value: unknown }[] };
  const interrupts = (state: unknown) => ((state as State).__interrupt__ ?? []).map((i) => i.value);
  const start = async () =>
    interrupts(
      await fixture.as(alice, () => agent.invoke({ messages: [new HumanMessage('archive 1, 2 and 3')] }, config)),
    );
  const resume = async (value: unknown) =>
    interrupts(await fixture.as(alice, () => agent.invoke(new Command({ resume: value }), config)));
  /** The approver decides the batch of `pause` through the service; the run resumes with what was decided. */
  const decideAndResume = async (pause: ApprovalBatchInterrupt, decisions: ApprovalBatchItemDecision[]) => {
    const outcome = await fixture.batches.decide(pause.batchId, decisions, support, alice);
    expect(outcome.outcome).toBe('decided');
    return resume(resumeApprovalBatch(outcome));
  };
  return { fixture, model, start, resume, decideAndResume };
}

const answer = (decision: string) =>
  JSON.stringify({ status: 'not_executed', capability: 'documents.archive', decision, message: 'Not done.' });

describe('batch approvals with createAgent (a scripted model proposes three confirming calls in one turn)', () => {
  it('pauses once with the whole batch, and after "approve all" runs each call exactly once', async () => {
    const { fixture, model, start, decideAndResume } = await setup();
    const pauses = await start();
    expect(pauses).toHaveLength(1);
    const [pause] = pauses as ApprovalBatchInterrupt[];
    expect(pause).toMatchObject({ type: 'verdict.approval_batch_required' });
    expect(pause.items.map((i) => [i.toolCallId, i.arguments, i.description])).toEqual([
      ['call_1', { id: 1 }, 'Archive document 1'],
      ['call_2', { id: 2 }, 'Archive document 2'],
      ['call_3', { id: 3 }, 'Archive document 3'],
    ]);
    expect(JSON.stringify(pause)).not.toMatch(/rcpt_/);
    expect(fixture.archived).toEqual([]);

    const after = await decideAndResume(
      pause,
      TURN.map((c) => ({ toolCallId: c.id, decision: 'approve' as const })),
    );
    expect(after).toEqual([]);
    expect([...fixture.archived].sort()).toEqual([1, 2, 3]);
    expect(
      model
        .toolMessages()
        .map((m) => m.content)
        .sort(),
    ).toEqual(['archived 1', 'archived 2', 'archived 3']);
    model.assertScriptConsumed();
  });

  it('runs the approved call, refuses the rejected one, and asks again for the edited one with its own batch', async () => {
    const { fixture, model, start, decideAndResume } = await setup();
    const [pause] = (await start()) as ApprovalBatchInterrupt[];
    const next = (await decideAndResume(pause, [
      { toolCallId: 'call_1', decision: 'approve' },
      { toolCallId: 'call_2', decision: 'reject' },
      { toolCallId: 'call_3', decision: 'edit', arguments: { id: 5 } },
    ])) as ApprovalBatchInterrupt[];
    expect(fixture.archived).toEqual([1]);
    // The edit is a new proposal: it needs confirmation of its own, in a new batch, bound to the edited arguments.
    expect(next).toHaveLength(1);
    expect(next[0].batchId).not.toBe(pause.batchId);
    expect(next[0].items.map((i) => [i.toolCallId, i.arguments])).toEqual([['call_3', { id: 5 }]]);
    // The approver's edit is not the requester changing an approved call's arguments (ADR 0124).
    expect(fixture.argumentsChanged).toEqual([]);

    const after = await decideAndResume(next[0], [{ toolCallId: 'call_3', decision: 'approve' }]);
    expect(after).toEqual([]);
    expect(fixture.archived).toEqual([1, 5]);
    const contents = model.toolMessages().map((m) => m.content);
    expect(contents).toEqual(expect.arrayContaining(['archived 1', answer('deny'), 'archived 5']));
    expect(contents).toHaveLength(3);
    model.assertScriptConsumed();
  });

  it('never runs an edit the actor may not make: the edited call is denied by CASL', async () => {
    const { fixture, model, start, decideAndResume } = await setup();
    const [pause] = (await start()) as ApprovalBatchInterrupt[];
    const after = await decideAndResume(pause, [
      { toolCallId: 'call_1', decision: 'approve' },
      { toolCallId: 'call_2', decision: 'approve' },
      { toolCallId: 'call_3', decision: 'edit', arguments: { id: 9 } }, // bob's document
    ]);
    expect(after).toEqual([]);
    expect([...fixture.archived].sort()).toEqual([1, 2]);
    expect(model.toolMessages().map((m) => m.content)).toContain(answer('deny'));
  });

  it('runs nothing on a resume value that is not the decided batch, even with approved receipts', async () => {
    const { fixture, model, start, resume } = await setup();
    const [pause] = (await start()) as ApprovalBatchInterrupt[];
    const outcome = await fixture.batches.decide(
      pause.batchId,
      TURN.map((c) => ({ toolCallId: c.id, decision: 'approve' as const })),
      support,
      alice,
    );
    expect(outcome.outcome).toBe('decided');
    await resume(approveToolCall('call_1'));
    expect(fixture.archived).toEqual([]);
    expect(model.toolMessages().map((m) => m.content)).toEqual(TURN.map(() => answer('require_confirmation')));
  });

  it('keeps the single-call interrupt for a turn of one call', async () => {
    const { start } = await setup([{ toolCalls: [call(1)] }, { text: 'done' }]);
    const pauses = await start();
    expect(pauses).toEqual([expect.objectContaining({ type: 'verdict.approval_required', toolCallId: 'call_1' })]);
  });
});
