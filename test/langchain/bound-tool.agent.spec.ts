import { describe, expect, it } from '@jest/globals';
import { tool } from '@langchain/core/tools';
import { HumanMessage } from '@langchain/core/messages';
import { Injectable, Module } from '@nestjs/common';
import { createAgent } from 'langchain';
import { z } from 'zod';
import {
  ActionContextStore,
  ApplicationFaultError,
  GuardedToolSchemaMismatchError,
  InMemoryEvidenceRecorder,
  MissingActionContextError,
  fingerprintString,
} from '@verdict/nestjs';
import { VerdictLangChainModule, VerdictTools, applicationFaultMiddleware } from '@verdict/nestjs/langchain';
import { ScriptedChatModel } from '../../libs/testing/src/scripted-chat-model.js';
import { alice, bob, documentsFixture } from '../pipeline/documents.fixture.js';

const notExecuted = (capability: string) =>
  JSON.stringify({ status: 'not_executed', capability, decision: 'deny', message: 'Not done.' });

async function setup() {
  const fixture = documentsFixture();
  const definitionCalls: unknown[] = [];
  const wrappedCalls: unknown[] = [];
  /** The model-facing definition: its own handler is unsafe and must never run through a bound tool. */
  const readDocument = tool(
    async (args) => {
      definitionCalls.push(args);
      return 'LEAKED';
    },
    {
      name: 'read_document',
      description: 'Read one document by id',
      schema: z.object({ id: z.number().int() }),
    },
  );
  /** A legacy tool moved behind Verdict with the migration bridge. */
  const legacyRead = tool(
    async (args: { id: number }) => {
      wrappedCalls.push(args);
      return `legacy read of ${args.id}`;
    },
    {
      name: 'legacy_read_document',
      description: 'Read a document (legacy handler)',
      schema: z.object({ id: z.number().int() }),
    },
  );

  @Injectable()
  class AssistantTools {
    constructor(readonly verdictTools: VerdictTools) {}
    all() {
      return [
        this.verdictTools.bound(readDocument, 'documents.read'),
        this.verdictTools.guarded(legacyRead, 'documents.read'),
      ];
    }
  }
  @Module({ imports: [VerdictLangChainModule], providers: [AssistantTools] })
  class AssistantModule {}

  const { moduleRef, evidence } = await fixture.boot({ imports: [AssistantModule] });
  const tools = moduleRef.get(AssistantTools).all();
  const contexts = moduleRef.get(ActionContextStore);
  const run = async (context: typeof alice, script: ConstructorParameters<typeof ScriptedChatModel>[0]) => {
    const model = new ScriptedChatModel(script);
    const agent = createAgent({ model, tools, middleware: [applicationFaultMiddleware()] });
    const state = await contexts.run(context, () =>
      agent.invoke({ messages: [new HumanMessage('help me with my documents')] }),
    );
    model.assertScriptConsumed();
    return { model, state };
  };
  const runOutsideContext = (script: ConstructorParameters<typeof ScriptedChatModel>[0]) =>
    createAgent({ model: new ScriptedChatModel(script), tools, middleware: [applicationFaultMiddleware()] }).invoke({
      messages: [new HumanMessage('hi')],
    });
  return {
    ...fixture,
    run,
    runOutsideContext,
    definitionCalls,
    wrappedCalls,
    records: () => (evidence as InMemoryEvidenceRecorder).decisions(),
  };
}

describe('Verdict bound tools in a LangChain agent', () => {
  it("tells the model only the fixed not_executed message for another actor's document, then serves its own", async () => {
    const { run, executions, definitionCalls } = await setup();
    const { model } = await run(bob, [
      { toolCalls: [{ name: 'read_document', args: { id: 1 }, id: 'call_foreign' }] },
      { toolCalls: [{ name: 'read_document', args: { id: 2 }, id: 'call_own' }] },
      { text: 'Here is your plan.' },
    ]);
    expect(model.toolMessages().map((m) => [m.tool_call_id, m.content])).toEqual([
      ['call_foreign', notExecuted('documents.read')],
      ['call_own', JSON.stringify({ id: 2, title: 'bob plan' })],
    ]);
    expect(executions.map((action) => action.target.id)).toEqual([2]);
    expect(definitionCalls).toHaveLength(0);
  });

  it('never shows the model an internal reason', async () => {
    const { run, records } = await setup();
    const { model } = await run(bob, [
      { toolCalls: [{ name: 'read_document', args: { id: 1 }, id: 'call_1' }] },
      { text: 'ok' },
    ]);
    const internal = records()[0].reason;
    expect(internal).toContain('no rule permits');
    const shown = model.transcript.flat().map((message) => JSON.stringify(message.content));
    expect(shown.some((content) => content.includes('no rule permits'))).toBe(false);
  });

  it('denies malformed arguments at the proposal stage and records it, instead of throwing', async () => {
    const { run, executions, records } = await setup();
    const { model } = await run(alice, [
      { toolCalls: [{ name: 'read_document', args: { id: 'DROP TABLE' }, id: 'call_bad' }] },
      { text: 'sorry' },
    ]);
    expect(model.toolMessages()[0].content).toBe(notExecuted('documents.read'));
    expect(executions).toHaveLength(0);
    expect(records()).toMatchObject([
      { stage: 'proposal', disposition: 'deny', toolKind: 'bound', toolCallFingerprint: fingerprintString('call_bad') },
    ]);
  });

  it('fingerprints the tool-call id as transport metadata', async () => {
    const { run, records } = await setup();
    await run(alice, [
      { toolCalls: [{ name: 'read_document', args: { id: 1 }, id: 'call_transport_9' }] },
      { text: 'done' },
    ]);
    expect(records().map((r) => r.toolCallFingerprint)).toEqual(Array(3).fill(fingerprintString('call_transport_9')));
    expect(JSON.stringify(records())).not.toContain('call_transport_9');
  });

  it("runs a guarded tool's own handler only after the proposal checks pass", async () => {
    const { run, wrappedCalls, executions, records } = await setup();
    const { model } = await run(bob, [
      { toolCalls: [{ name: 'legacy_read_document', args: { id: 1 }, id: 'g1' }] },
      { toolCalls: [{ name: 'legacy_read_document', args: { id: 2 }, id: 'g2' }] },
      { text: 'done' },
    ]);
    expect(model.toolMessages().map((m) => m.content)).toEqual([notExecuted('documents.read'), 'legacy read of 2']);
    expect(wrappedCalls).toEqual([{ id: 2 }]);
    expect(executions).toHaveLength(0);
    expect(records().map((r) => `${r.toolKind}:${r.stage}:${r.disposition}`)).toEqual([
      'guarded:proposal:deny',
      'guarded:proposal:permit',
    ]);
  });

  it('lets application faults reject the agent run instead of showing them to the model', async () => {
    const { run, hooks, executions } = await setup();
    const fault = new Error('connection to the order database was lost');
    hooks.onResolve = () => {
      throw fault;
    };
    await expect(
      run(alice, [{ toolCalls: [{ name: 'read_document', args: { id: 1 }, id: 'call_f' }] }, { text: 'unreachable' }]),
    ).rejects.toMatchObject({
      constructor: ApplicationFaultError,
      cause: fault,
    });
    expect(executions).toHaveLength(0);
  });

  it('fails the run closed when no action context is bound', async () => {
    const { runOutsideContext, executions } = await setup();
    await expect(
      runOutsideContext([
        { toolCalls: [{ name: 'read_document', args: { id: 1 }, id: 'call_nc' }] },
        { text: 'unreachable' },
      ]),
    ).rejects.toMatchObject({ constructor: ApplicationFaultError, cause: expect.any(MissingActionContextError) });
    expect(executions).toHaveLength(0);
  });

  it('refuses, as an application fault, a guarded tool whose own schema rejects what its capability accepted', async () => {
    const fixture = documentsFixture();
    const strict = tool(async () => 'ran', {
      name: 'strict_read',
      description: 'Read',
      schema: z.object({ id: z.number(), reason: z.string() }),
    });
    @Injectable()
    class StrictTools {
      constructor(readonly verdictTools: VerdictTools) {}
    }
    @Module({ imports: [VerdictLangChainModule], providers: [StrictTools] })
    class StrictModule {}
    const { moduleRef, evidence } = await fixture.boot({ imports: [StrictModule] });
    const guarded = moduleRef.get(StrictTools).verdictTools.guarded(strict, 'documents.read');
    const invocation = moduleRef
      .get(ActionContextStore)
      .run(alice, () =>
        guarded.invoke({ name: 'strict_read', args: { id: 1, reason: 'audit' }, id: 'g_strict', type: 'tool_call' }),
      );
    // Invoked with a tool call, the fault is carried by an ApplicationFaultError that will not become model text.
    const error = await invocation.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApplicationFaultError);
    expect((error as ApplicationFaultError).cause).toBeInstanceOf(GuardedToolSchemaMismatchError);
    expect((evidence as InMemoryEvidenceRecorder).decisions().map((r) => `${r.stage}:${r.disposition}`)).toEqual([
      'proposal:permit',
    ]);
  });
});
