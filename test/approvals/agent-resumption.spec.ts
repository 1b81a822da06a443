import { describe, expect, it, jest } from '@jest/globals';
import { HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { Command, MemorySaver } from '@langchain/langgraph';
import { Injectable, Logger, Module } from '@nestjs/common';
import { createAgent } from 'langchain';
import { z } from 'zod';
import {
  ActionContextStore,
  ApprovalService,
  InMemoryApprovalReceiptStore,
  type AuthorizedAction,
} from '@verdict/nestjs';
import {
  VerdictLangChainModule,
  VerdictTools,
  applicationFaultMiddleware,
  approveToolCall,
  rejectToolCall,
} from '@verdict/nestjs/langchain';
import { ScriptedChatModel } from '../../libs/testing/src/scripted-chat-model.js';
import { alice, documentsFixture } from '../pipeline/documents.fixture.js';
import { archiveCapability } from './archive.fixture.js';

const CALL = { name: 'archive_document', args: { id: 1 }, id: 'call_archive_1' };

async function setup({ checkpointer = true, runs = 1 } = {}) {
  const fixture = documentsFixture();
  const archived: AuthorizedAction[] = [];
  const archive = archiveCapability(fixture, archived);
  const definition = tool(async () => 'definition handler must not run', {
    name: CALL.name,
    description: 'Archive a document',
    schema: z.object({ id: z.number().int() }),
  });

  @Injectable()
  class AgentTools {
    constructor(readonly tools: VerdictTools) {}
  }
  @Module({ imports: [VerdictLangChainModule], providers: [AgentTools] })
  class AgentModule {}
  const { moduleRef } = await fixture.boot({
    capabilities: [archive],
    approvals: new InMemoryApprovalReceiptStore(),
    imports: [AgentModule],
  });
  const bound = moduleRef.get(AgentTools).tools.bound(definition, 'documents.archive');
  const contexts = moduleRef.get(ActionContextStore);
  const approvals = moduleRef.get(ApprovalService);
  const model = new ScriptedChatModel(
    Array.from({ length: runs }, () => [{ toolCalls: [CALL] }, { text: 'done' }]).flat(),
  );
  const agent = createAgent({
    model,
    tools: [bound],
    ...(checkpointer ? { checkpointer: new MemorySaver() } : {}),
    middleware: [applicationFaultMiddleware()],
  });
  const config = { configurable: { thread_id: `thread-${Math.random()}` } };
  const as = <T>(fn: () => Promise<T>) => contexts.run(alice, fn);
  /** Runs the agent until the bound tool pauses it, and returns the interrupt value the application sees. */
  const startAndPause = async () => {
    const state = (await as(() => agent.invoke({ messages: [new HumanMessage('archive document 1')] }, config))) as {
      __interrupt__?: { value: unknown }[];
    };
    return state.__interrupt__?.map((i) => i.value) ?? [];
  };
  const resume = (value: unknown) => as(() => agent.invoke(new Command({ resume: value }), config));
  const approve = async () => {
    const challenge = await approvals.challengeForToolCall(CALL.id);
    expect(challenge).not.toBeNull();
    expect(await approvals.approve(challenge!.receiptId, CALL.id, 'customer:alice')).toMatchObject({
      outcome: 'approved',
    });
  };
  const reject = async () => {
    const challenge = await approvals.challengeForToolCall(CALL.id);
    expect(await approvals.reject(challenge!.receiptId, CALL.id, 'customer:alice')).toMatchObject({
      outcome: 'rejected',
    });
  };
  return { agent, config, model, archived, startAndPause, resume, approve, reject, as };
}

const notExecuted = (decision: string) =>
  JSON.stringify({ status: 'not_executed', capability: 'documents.archive', decision, message: 'Not done.' });

describe('agent resumption with verified confirmation (langchain v1 createAgent, LangGraph checkpointer)', () => {
  it('pauses the run with the challenge, and after an explicit approval executes exactly once', async () => {
    const { startAndPause, resume, approve, archived, model } = await setup();
    const interrupts = await startAndPause();
    expect(interrupts).toEqual([
      expect.objectContaining({
        type: 'verdict.approval_required',
        toolCallId: CALL.id,
        capability: 'documents.archive',
        description: 'Archive document 1',
      }),
    ]);
    expect(JSON.stringify(interrupts)).not.toMatch(/rcpt_/);
    expect(archived).toHaveLength(0);

    await approve();
    await resume(approveToolCall(CALL.id));
    expect(archived).toHaveLength(1);
    expect(model.toolMessages().map((m) => m.content)).toEqual(['archived 1']);
    model.assertScriptConsumed();
  });

  it.each([
    ['an "approve all" resume value', true],
    ['a human-in-the-loop approve decision without the tool-call id', { decisions: [{ type: 'approve' }] }],
    ['an edited call', { decisions: [{ type: 'edit', editedAction: { name: CALL.name, args: { id: 2 } } }] }],
    ['an approval of another tool call', approveToolCall('call_other')],
  ])('never executes on %s, even with an approved receipt', async (_name, value) => {
    const { startAndPause, resume, approve, archived, model } = await setup();
    await startAndPause();
    await approve();
    await resume(value);
    expect(archived).toHaveLength(0);
    expect(model.toolMessages().map((m) => m.content)).toEqual([notExecuted('require_confirmation')]);
  });

  it('never executes a rejected call', async () => {
    const { startAndPause, resume, reject, archived, model } = await setup();
    await startAndPause();
    await reject();
    await resume(rejectToolCall(CALL.id));
    expect(archived).toHaveLength(0);
    expect(model.toolMessages().map((m) => m.content)).toEqual([notExecuted('deny')]);
  });

  it('executes once when the resumed run is streamed', async () => {
    const { startAndPause, approve, archived, agent, config, as } = await setup();
    await startAndPause();
    await approve();
    const chunks: unknown[] = [];
    await as(async () => {
      for await (const chunk of await agent.stream(new Command({ resume: approveToolCall(CALL.id) }), {
        ...config,
        streamMode: 'updates',
      }))
        chunks.push(chunk);
    });
    expect(chunks.length).toBeGreaterThan(0);
    expect(archived).toHaveLength(1);
  });
});

describe('a LangGraph run without a checkpointer', () => {
  const warnings = () => {
    const warned = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    return {
      about: () => warned.mock.calls.map(([message]) => String(message)).filter((m) => m.includes('checkpointer')),
      restore: () => warned.mockRestore(),
    };
  };

  it('cannot pause: the call is not executed, the model is told so, and the setup mistake is logged', async () => {
    const { startAndPause, archived, model } = await setup({ checkpointer: false });
    const warned = warnings();
    try {
      expect(await startAndPause()).toEqual([]);
      expect(archived).toHaveLength(0);
      expect(model.toolMessages().map((m) => m.content)).toEqual([notExecuted('require_confirmation')]);
      expect(warned.about()).toEqual([expect.stringContaining('documents.archive requires confirmation')]);
    } finally {
      warned.restore();
    }
  });

  it('logs it once per bound tool, however many runs meet it', async () => {
    const { startAndPause, archived, model } = await setup({ checkpointer: false, runs: 3 });
    const warned = warnings();
    try {
      for (let run = 0; run < 3; run++) expect(await startAndPause()).toEqual([]);
      expect(archived).toHaveLength(0);
      expect(model.toolMessages()).toHaveLength(3);
      expect(warned.about()).toHaveLength(1);
    } finally {
      warned.restore();
    }
  });

  it('control: with a checkpointer the run pauses and nothing is logged about it', async () => {
    const { startAndPause } = await setup();
    const warned = warnings();
    try {
      expect(await startAndPause()).toHaveLength(1);
      expect(warned.about()).toEqual([]);
    } finally {
      warned.restore();
    }
  });
});
