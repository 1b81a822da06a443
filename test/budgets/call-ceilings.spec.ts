import { afterEach, describe, expect, it } from '@jest/globals';
import { HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { Injectable, Module } from '@nestjs/common';
import { EventEmitter2, EventEmitterModule } from '@nestjs/event-emitter';
import type { TestingModule } from '@nestjs/testing';
import { createAgent } from 'langchain';
import { z } from 'zod';
import {
  ActionContextStore,
  type ActionContext,
  CallCeilingReachedError,
  type CallCeilings,
  InMemoryBudgetStore,
  InMemoryEvidenceRecorder,
  ToolLoopDetected,
  VerdictService,
  fingerprint,
} from '@verdict/nestjs';
import { VerdictLangChainModule, VerdictTools } from '@verdict/nestjs/langchain';
import { ScriptedChatModel } from '../../libs/testing/src/scripted-chat-model.js';
import { alice, documentsFixture } from '../pipeline/documents.fixture.js';

const booted: TestingModule[] = [];
afterEach(async () => {
  await Promise.all(booted.splice(0).map((moduleRef) => moduleRef.close()));
});

const inConversation = (id: string): ActionContext => ({ ...alice, metadata: { conversationId: id } });

async function setup(callCeilings: CallCeilings) {
  const fixture = documentsFixture();
  const read = tool(async () => 'unused', {
    name: 'read_document',
    description: 'Read a document',
    schema: z.object({ id: z.number().int() }),
  });
  @Injectable()
  class AssistantTools {
    constructor(readonly verdictTools: VerdictTools) {}
  }
  @Module({ imports: [VerdictLangChainModule], providers: [AssistantTools] })
  class AssistantModule {}
  const evidence = new InMemoryEvidenceRecorder();
  // One instant for the whole test: the ceilings' window (a UTC day) cannot roll over between two calls.
  const now = new Date();
  const { moduleRef } = await fixture.boot({
    imports: [AssistantModule, EventEmitterModule.forRoot()],
    budgets: new InMemoryBudgetStore(),
    callCeilings,
    evidence,
    clock: () => now,
  });
  booted.push(moduleRef);
  const loops: ToolLoopDetected[] = [];
  moduleRef.get(EventEmitter2).on(ToolLoopDetected.event, (event: ToolLoopDetected) => loops.push(event));
  const tools = [moduleRef.get(AssistantTools).verdictTools.bound(read, 'documents.read')];
  const contexts = moduleRef.get(ActionContextStore);
  const verdict = moduleRef.get(VerdictService);
  const readAs = (context: ActionContext, id: number) =>
    contexts.run(context, () => verdict.execute({ capability: 'documents.read', arguments: { id } }));
  const evaluateAs = (context: ActionContext, id: number) =>
    contexts.run(context, () => verdict.evaluate({ capability: 'documents.read', arguments: { id } }));
  const outcome = (result: { executed: boolean; decision: { disposition: string; stage: string } }) =>
    result.executed ? 'executed' : `${result.decision.disposition}@${result.decision.stage}`;
  /** An agent whose model proposes `ids` one turn after another, then answers. */
  const agent = (context: ActionContext, ids: number[]) => {
    const model = new ScriptedChatModel([
      ...ids.map((id, turn) => ({ toolCalls: [{ name: 'read_document', args: { id }, id: `call_${turn}` }] })),
      { text: 'Done.' },
    ]);
    return contexts.run(context, () =>
      createAgent({ model, tools }).invoke({ messages: [new HumanMessage('read the documents')] }),
    );
  };
  return { readAs, evaluateAs, outcome, agent, loops, evidence };
}

describe('call ceilings', () => {
  it('attack: an agent looping on refused calls is stopped at the ceiling, with ToolLoopDetected; the conversation stays stopped', async () => {
    const { agent, loops, readAs, outcome, evidence } = await setup({ deniedProposals: 3 });
    // Bob's document, four times with different arguments each time: no identical proposal repeats.
    await expect(agent(inConversation('c-1'), [2, 2002, 3, 2, 2])).rejects.toBeInstanceOf(CallCeilingReachedError);
    expect(loops.map((event) => [event.capability, event.repetitions, event.conversationFingerprint])).toEqual([
      ['documents.read', 3, fingerprint('c-1')],
    ]);
    expect(outcome(await readAs(inConversation('c-1'), 1))).toBe('deny@call_ceiling');
    expect(evidence.decisions().filter((record) => record.stage === 'call_ceiling')).toHaveLength(2);
  });

  it('control: an agent under the ceiling is not stopped; another conversation and a call without one are not counted', async () => {
    const { agent, loops, readAs, outcome } = await setup({ deniedProposals: 3 });
    const answer = await agent(inConversation('c-1'), [1, 2, 1, 2]);
    expect(answer.messages.at(-1)?.content).toBe('Done.');
    expect(loops).toEqual([]);
    await readAs(inConversation('c-2'), 2);
    await readAs(inConversation('c-2'), 2);
    expect(outcome(await readAs(inConversation('c-2'), 1))).toBe('executed');
    for (let i = 0; i < 4; i++) await readAs(alice, 2);
    expect(outcome(await readAs(alice, 1))).toBe('executed');
  });

  it('refuses the proposal past the tool-call ceiling of its conversation, and only there', async () => {
    const { readAs, outcome } = await setup({ toolCalls: 2 });
    const c1 = inConversation('c-1');
    expect([await readAs(c1, 1), await readAs(c1, 1), await readAs(c1, 1)].map(outcome)).toEqual([
      'executed',
      'executed',
      'deny@call_ceiling',
    ]);
    expect(outcome(await readAs(inConversation('c-2'), 1))).toBe('executed');
  });

  it('evaluate answers as execute would at a ceiling, and counts nothing', async () => {
    const { readAs, evaluateAs, outcome } = await setup({ toolCalls: 2, deniedProposals: 2 });
    // Under the tool-call ceiling: evaluating, however often, counts no call.
    const c1 = inConversation('c-1');
    for (let i = 0; i < 3; i++) expect(outcome(await evaluateAs(c1, 1))).toBe('permit@execution');
    expect([await readAs(c1, 1), await readAs(c1, 1)].map(outcome)).toEqual(['executed', 'executed']);
    // Past it: a UI evaluating before it offers the call is told what execute would answer.
    expect(outcome(await evaluateAs(c1, 1))).toBe('deny@call_ceiling');
    expect(outcome(await readAs(c1, 1))).toBe('deny@call_ceiling');

    // A conversation stopped by its refused proposals: evaluating an allowed call is refused too.
    const c2 = inConversation('c-2');
    expect([await readAs(c2, 2), await readAs(c2, 2)].map(outcome)).toEqual(['deny@proposal', 'deny@proposal']);
    expect(outcome(await evaluateAs(c2, 1))).toBe('deny@call_ceiling');
    // Control: another conversation is not refused, and its evaluations counted nothing against it.
    const c3 = inConversation('c-3');
    expect(outcome(await evaluateAs(c3, 2))).toBe('deny@proposal');
    expect(outcome(await evaluateAs(c3, 2))).toBe('deny@proposal');
    expect(outcome(await readAs(c3, 1))).toBe('executed');
  });

  it('does not boot with ceilings but no budget store, or a ceiling that is not a positive integer', async () => {
    const fixture = documentsFixture();
    await expect(fixture.boot({ callCeilings: { toolCalls: 5 } })).rejects.toThrow(/need a budget store/);
    await expect(
      fixture.boot({ callCeilings: { deniedProposals: 0 }, budgets: new InMemoryBudgetStore() }),
    ).rejects.toThrow(/deniedProposals must be a positive integer/);
  });
});
