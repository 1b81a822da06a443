import { describe, expect, it } from '@jest/globals';
import { HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { Injectable, Module } from '@nestjs/common';
import { createAgent } from 'langchain';
import { QueryFailedError } from 'typeorm';
import { z } from 'zod';
import { ActionContextStore, ApplicationFaultError } from '@verdict/nestjs';
import { VerdictLangChainModule, VerdictTools, applicationFaultMiddleware } from '@verdict/nestjs/langchain';
import { ScriptedChatModel } from '../../libs/testing/src/scripted-chat-model.js';
import { alice, documentsFixture } from '../pipeline/documents.fixture.js';

/** What a database driver puts in its error: internals the model must never read. */
const DRIVER_TEXT = 'connect ECONNREFUSED host=orders-db.internal.example port=5432 user=verdict_app';

async function setup() {
  const fixture = documentsFixture();
  const legacyCalls: unknown[] = [];
  const legacy = { fails: false };
  const read = tool(async () => 'definition handler', { name: 'read_document', description: 'Read a document', schema: z.object({ id: z.number().int() }) });
  const legacyRead = tool(
    async (args: { id: number }) => {
      legacyCalls.push(args);
      if (legacy.fails) throw new QueryFailedError('SELECT * FROM documents WHERE id = $1', [args.id], new Error(DRIVER_TEXT));
      return `legacy read of ${args.id}`;
    },
    { name: 'legacy_read_document', description: 'Read a document (legacy handler)', schema: z.object({ id: z.number().int() }) },
  );
  @Injectable()
  class AssistantTools {
    constructor(readonly verdictTools: VerdictTools) {}
  }
  @Module({ imports: [VerdictLangChainModule], providers: [AssistantTools] })
  class AssistantModule {}
  const { moduleRef } = await fixture.boot({ imports: [AssistantModule] });
  const verdictTools = moduleRef.get(AssistantTools).verdictTools;
  const tools = [verdictTools.bound(read, 'documents.read'), verdictTools.guarded(legacyRead, 'documents.read')];
  const contexts = moduleRef.get(ActionContextStore);
  /** A plain `createAgent` loop, with no Verdict middleware unless the test adds it. */
  const run = (model: ScriptedChatModel, middleware: ReturnType<typeof applicationFaultMiddleware>[] = []) =>
    contexts.run(alice, () => createAgent({ model, tools, middleware }).invoke({ messages: [new HumanMessage('read my document')] }));
  const failResolver = () => {
    const fault = new QueryFailedError('SELECT * FROM documents WHERE id = $1', [1], new Error(DRIVER_TEXT));
    fixture.hooks.onResolve = () => {
      throw fault;
    };
    return fault;
  };
  return { ...fixture, run, failResolver, legacy, legacyCalls, tools, contexts };
}

/** Everything the model was shown, as one string. */
const shown = (model: ScriptedChatModel) => JSON.stringify(model.transcript.flat().map((message) => message.content));

describe('an application fault in a Verdict tool, without applicationFaultMiddleware', () => {
  it("rejects the agent run with the resolver's error and never shows its text to the model", async () => {
    const { run, failResolver, executions } = await setup();
    const fault = failResolver();
    const model = new ScriptedChatModel([{ toolCalls: [{ name: 'read_document', args: { id: 1 }, id: 'call_f' }] }, { text: 'Sorry, the database is down.' }]);
    await expect(run(model)).rejects.toBe(fault);
    expect(model.transcript).toHaveLength(1);
    expect(shown(model)).not.toContain('ECONNREFUSED');
    expect(executions).toHaveLength(0);
  });

  it("rejects the run when a guarded tool's own handler fails", async () => {
    const { run, legacy, legacyCalls } = await setup();
    legacy.fails = true;
    const model = new ScriptedChatModel([{ toolCalls: [{ name: 'legacy_read_document', args: { id: 1 }, id: 'call_g' }] }, { text: 'unreachable' }]);
    await expect(run(model)).rejects.toBeInstanceOf(QueryFailedError);
    expect(legacyCalls).toEqual([{ id: 1 }]);
    expect(shown(model)).not.toContain('ECONNREFUSED');
  });

  it('answers the model as before when nothing fails (control)', async () => {
    const { run } = await setup();
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'read_document', args: { id: 1 }, id: 'call_ok' }] },
      { toolCalls: [{ name: 'legacy_read_document', args: { id: 1 }, id: 'call_legacy' }] },
      { text: 'Here it is.' },
    ]);
    await run(model);
    model.assertScriptConsumed();
    expect(model.toolMessages().map((m) => m.content)).toEqual(['{"id":1,"title":"alice plan"}', 'legacy read of 1']);
  });

  it('rejects the run with the original error with applicationFaultMiddleware too', async () => {
    const { run, failResolver } = await setup();
    const fault = failResolver();
    const model = new ScriptedChatModel([{ toolCalls: [{ name: 'read_document', args: { id: 1 }, id: 'call_m' }] }, { text: 'unreachable' }]);
    await expect(run(model, [applicationFaultMiddleware()])).rejects.toBe(fault);
  });

  it('hands a caller that invokes the tool with a tool call an error that will not become model text', async () => {
    const { tools, contexts, failResolver } = await setup();
    const fault = failResolver();
    const invocation = contexts.run(alice, () => tools[0].invoke({ name: 'read_document', args: { id: 1 }, id: 'call_direct', type: 'tool_call' }));
    const error = await invocation.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApplicationFaultError);
    expect(error).toMatchObject({ code: 'VERDICT_APPLICATION_FAULT', cause: fault });
    expect((error as Error).message).not.toContain('ECONNREFUSED');
    expect(() => `${String(error)}`).toThrow(fault);
    expect(JSON.stringify(error)).not.toContain('ECONNREFUSED');
  });
});
