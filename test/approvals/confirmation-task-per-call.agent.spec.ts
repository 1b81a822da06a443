import { describe, expect, it } from '@jest/globals';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { Command, END, MemorySaver, MessagesAnnotation, START, Send, StateGraph } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { Injectable, Module } from '@nestjs/common';
import { EventEmitter2, EventEmitterModule } from '@nestjs/event-emitter';
import { createAgent } from 'langchain';
import { z } from 'zod';
import {
  ActionContextStore,
  ApplicationFaultError,
  ApprovalReplayDetected,
  ApprovalService,
  type AuthorizedAction,
  InMemoryApprovalReceiptStore,
  VerdictConfigurationError,
} from '@verdict/nestjs';
import {
  VerdictLangChainModule,
  VerdictTools,
  applicationFaultMiddleware,
  approveToolCall,
} from '@verdict/nestjs/langchain';
import { ScriptedChatModel, type ScriptStep } from '@verdict/nestjs/testing/langchain';
import { alice, documentsFixture } from '../pipeline/documents.fixture.js';
import { archiveCapability } from './archive.fixture.js';

const ARCHIVE_1 = { name: 'archive_document', args: { id: 1, note: 'first' }, id: 'call_archive_1' };
const ARCHIVE_2 = { name: 'archive_document', args: { id: 1, note: 'second' }, id: 'call_archive_2' };
const RENAME = { name: 'rename_document', args: { id: 1, title: 'renamed once' }, id: 'call_rename_1' };
const requester = { ...alice, metadata: { conversationId: 'conv-per-call' } };

/**
 * `documents.archive` (confirmation) and `documents.rename` (none) as bound tools over the documents fixture, for an
 * agent built by `build` from the bound tools and a scripted model.
 */
async function setup(script: ScriptStep[]) {
  const fixture = documentsFixture();
  const archived: AuthorizedAction[] = [];
  const schema = z.object({ id: z.number().int(), note: z.string().optional() });
  const archiveDefinition = tool(async () => 'never', { name: ARCHIVE_1.name, description: 'Archive', schema });
  const renameDefinition = tool(async () => 'never', {
    name: RENAME.name,
    description: 'Rename',
    schema: z.object({ id: z.number().int(), title: z.string() }),
  });
  @Injectable()
  class AgentTools {
    constructor(readonly tools: VerdictTools) {}
  }
  @Module({ imports: [VerdictLangChainModule, EventEmitterModule.forRoot()], providers: [AgentTools] })
  class AgentModule {}
  const { moduleRef } = await fixture.boot({
    capabilities: [archiveCapability(fixture, archived)],
    approvals: new InMemoryApprovalReceiptStore(),
    imports: [AgentModule],
  });
  const replays: unknown[] = [];
  moduleRef.get(EventEmitter2).on(ApprovalReplayDetected.event, (event: unknown) => replays.push(event));
  const verdictTools = moduleRef.get(AgentTools).tools;
  const tools = [
    verdictTools.bound(archiveDefinition, 'documents.archive'),
    verdictTools.bound(renameDefinition, 'documents.rename'),
  ];
  const model = new ScriptedChatModel(script);
  const approvals = moduleRef.get(ApprovalService);
  const contexts = moduleRef.get(ActionContextStore);
  const as = <T>(fn: () => Promise<T>) => contexts.run(requester, fn);
  const approve = async (toolCallId: string) => {
    const challenge = await approvals.challengeForToolCall(toolCallId, requester);
    expect(challenge).not.toBeNull();
    await approvals.approve(challenge!.receiptId, toolCallId, 'customer:alice');
  };
  return { fixture, tools, model, archived, replays, as, approve };
}

type Runnable = { invoke(input: unknown, config: unknown): Promise<unknown> };

/** Starts and resumes `agent` on a thread of its own; answers the tool-call ids of the run's pending interrupts. */
function runner(agent: Runnable, as: <T>(fn: () => Promise<T>) => Promise<T>) {
  const config = { configurable: { thread_id: `thread-${Math.random()}` } };
  const pending = (state: unknown) =>
    ((state as { __interrupt__?: { value: { toolCallId: string } }[] }).__interrupt__ ?? []).map(
      (i) => i.value.toolCallId,
    );
  return {
    start: async () => pending(await as(() => agent.invoke({ messages: [new HumanMessage('go')] }, config))),
    resume: async (value: unknown) => pending(await as(() => agent.invoke(new Command({ resume: value }), config))),
  };
}

/** What a v1 agent's run rejects with: the configuration error, as the cause of the tool's application fault. */
async function expectPerCallTaskRequired(run: Promise<unknown>) {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ApplicationFaultError);
  const cause = (error as ApplicationFaultError).cause;
  expect(cause).toBeInstanceOf(VerdictConfigurationError);
  expect((cause as Error).message).toContain("createAgent({ version: 'v2' })");
}

/** A hand-built graph: the model, then the prebuilt ToolNode, sent each call alone (`perCall`) or the whole message. */
function handBuiltGraph(s: Awaited<ReturnType<typeof setup>>, perCall: boolean) {
  const tools = new ToolNode(s.tools);
  const route = (state: typeof MessagesAnnotation.State) => {
    const last = state.messages.at(-1);
    const calls = AIMessage.isInstance(last) ? (last.tool_calls ?? []) : [];
    if (calls.length === 0) return END;
    return perCall ? calls.map((call) => new Send('tools', { ...state, lg_tool_call: call })) : 'tools';
  };
  return new StateGraph(MessagesAnnotation)
    .addNode('model', async (state) => ({ messages: [await s.model.invoke(state.messages)] }))
    .addNode('tools', tools)
    .addEdge(START, 'model')
    .addConditionalEdges('model', route, ['tools', END])
    .addEdge('tools', 'model')
    .compile({ checkpointer: new MemorySaver() });
}

describe('a confirmation pauses only a LangGraph task of its own call (ADR 0177)', () => {
  describe("createAgent({ version: 'v1' }): every call of the turn in one task", () => {
    const v1Agent = (s: Awaited<ReturnType<typeof setup>>) =>
      createAgent({
        model: s.model,
        tools: s.tools,
        checkpointer: new MemorySaver(),
        middleware: [applicationFaultMiddleware()],
        version: 'v1',
      });

    it('attack: a confirming call with a sibling fails the run with VerdictConfigurationError; nothing runs twice', async () => {
      const s = await setup([{ toolCalls: [ARCHIVE_1, RENAME] }, { text: 'done' }]);
      await expectPerCallTaskRequired(runner(v1Agent(s), s.as).start());
      expect(s.archived).toHaveLength(0);
      // The sibling ran at most once, in the run that failed: it is never run again by a resume.
      expect(s.fixture.executions.length).toBeLessThanOrEqual(1);
      expect(s.replays).toHaveLength(0);
    });

    it('attack: two confirming calls fail the run before either is approved; no replay, nothing archived', async () => {
      const s = await setup([{ toolCalls: [ARCHIVE_1, ARCHIVE_2] }, { text: 'done' }]);
      await expectPerCallTaskRequired(runner(v1Agent(s), s.as).start());
      expect(s.archived).toHaveLength(0);
      expect(s.replays).toHaveLength(0);
    });
  });

  describe('createAgent with its default version (v2): each call a task of its own', () => {
    it('utility: the confirming call pauses, runs once when approved; its sibling runs once', async () => {
      const s = await setup([{ toolCalls: [ARCHIVE_1, RENAME] }, { text: 'done' }]);
      const agent = createAgent({
        model: s.model,
        tools: s.tools,
        checkpointer: new MemorySaver(),
        middleware: [applicationFaultMiddleware()],
      });
      const run = runner(agent, s.as);
      expect(await run.start()).toEqual([ARCHIVE_1.id]);
      await s.approve(ARCHIVE_1.id);
      expect(await run.resume(approveToolCall(ARCHIVE_1.id))).toEqual([]);
      expect(s.archived.map((a) => a.arguments)).toEqual([ARCHIVE_1.args]);
      expect(s.fixture.executions).toHaveLength(1);
      expect(s.replays).toHaveLength(0);
      s.model.assertScriptConsumed();
    });
  });

  describe("a hand-built graph with LangGraph's prebuilt ToolNode", () => {
    it('utility: sent each call alone (Send with lg_tool_call), the call pauses and runs once when approved', async () => {
      const s = await setup([{ toolCalls: [ARCHIVE_1, RENAME] }, { text: 'done' }]);
      const run = runner(handBuiltGraph(s, true), s.as);
      expect(await run.start()).toEqual([ARCHIVE_1.id]);
      await s.approve(ARCHIVE_1.id);
      expect(await run.resume(approveToolCall(ARCHIVE_1.id))).toEqual([]);
      expect(s.archived).toHaveLength(1);
      expect(s.fixture.executions).toHaveLength(1);
      s.model.assertScriptConsumed();
    });

    it('utility: handed a message whose one call is the confirming call, the call pauses and runs once when approved', async () => {
      const s = await setup([{ toolCalls: [ARCHIVE_1] }, { text: 'done' }]);
      const run = runner(handBuiltGraph(s, false), s.as);
      expect(await run.start()).toEqual([ARCHIVE_1.id]);
      await s.approve(ARCHIVE_1.id);
      expect(await run.resume(approveToolCall(ARCHIVE_1.id))).toEqual([]);
      expect(s.archived.map((a) => a.arguments)).toEqual([ARCHIVE_1.args]);
      expect(s.replays).toHaveLength(0);
      s.model.assertScriptConsumed();
    });

    it('attack: handed the whole message, the confirming call never pauses and is not executed', async () => {
      const s = await setup([{ toolCalls: [ARCHIVE_1, RENAME] }, { text: 'done' }]);
      const run = runner(handBuiltGraph(s, false), s.as);
      // The prebuilt ToolNode answers the model with a tool's error (its `handleToolErrors`): the fixed fault message.
      expect(await run.start()).toEqual([]);
      expect(s.archived).toHaveLength(0);
      expect(s.fixture.executions).toHaveLength(1);
      const [archiveAnswer] = s.model.toolMessages().filter((m) => m.tool_call_id === ARCHIVE_1.id);
      expect(archiveAnswer?.content).toContain('stopped on an application fault');
    });
  });
});
