import { describe, expect, it } from '@jest/globals';
import { HumanMessage, ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { Injectable, Module } from '@nestjs/common';
import { type AgentMiddleware, createAgent, createMiddleware, toolRetryMiddleware } from 'langchain';
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
  const read = tool(async () => 'definition handler', {
    name: 'read_document',
    description: 'Read a document',
    schema: z.object({ id: z.number().int() }),
  });
  const legacyRead = tool(
    async (args: { id: number }) => {
      legacyCalls.push(args);
      if (legacy.fails)
        throw new QueryFailedError('SELECT * FROM documents WHERE id = $1', [args.id], new Error(DRIVER_TEXT));
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
  }
  @Module({ imports: [VerdictLangChainModule], providers: [AssistantTools] })
  class AssistantModule {}
  const { moduleRef } = await fixture.boot({ imports: [AssistantModule] });
  const verdictTools = moduleRef.get(AssistantTools).verdictTools;
  const tools = [verdictTools.bound(read, 'documents.read'), verdictTools.guarded(legacyRead, 'documents.read')];
  const contexts = moduleRef.get(ActionContextStore);
  /** A plain `createAgent` loop, with no Verdict middleware unless the test adds it. */
  const run = (model: ScriptedChatModel, middleware: AgentMiddleware[] = []) =>
    contexts.run(alice, () =>
      createAgent({ model, tools, middleware }).invoke({ messages: [new HumanMessage('read my document')] }),
    );
  let resolverFaults = 0;
  const failResolver = () => {
    const fault = new QueryFailedError('SELECT * FROM documents WHERE id = $1', [1], new Error(DRIVER_TEXT));
    fixture.hooks.onResolve = () => {
      resolverFaults += 1;
      throw fault;
    };
    return fault;
  };
  return { ...fixture, run, failResolver, resolveCalls: () => resolverFaults, legacy, legacyCalls, tools, contexts };
}

/** langchain's documented pattern: a middleware that turns a tool's error into a message for the model. */
const errorsAsMessages = () =>
  createMiddleware({
    name: 'ErrorsAsMessages',
    wrapToolCall: async (request, handler) => {
      try {
        return await handler(request);
      } catch (error) {
        return new ToolMessage({
          content: `Tool failed: ${(error as Error).message}`,
          tool_call_id: request.toolCall.id!,
        });
      }
    },
  });

/** Everything the model was shown, as one string. */
const shown = (model: ScriptedChatModel) => JSON.stringify(model.transcript.flat().map((message) => message.content));

describe('an application fault in a Verdict tool, without applicationFaultMiddleware', () => {
  it("rejects the agent run with the resolver's error and never shows its text to the model", async () => {
    const { run, failResolver, executions } = await setup();
    const fault = failResolver();
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'read_document', args: { id: 1 }, id: 'call_f' }] },
      { text: 'Sorry, the database is down.' },
    ]);
    await expect(run(model)).rejects.toMatchObject({ constructor: ApplicationFaultError, cause: fault });
    expect(model.transcript).toHaveLength(1);
    expect(shown(model)).not.toContain('ECONNREFUSED');
    expect(executions).toHaveLength(0);
  });

  it("rejects the run when a guarded tool's own handler fails", async () => {
    const { run, legacy, legacyCalls } = await setup();
    legacy.fails = true;
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'legacy_read_document', args: { id: 1 }, id: 'call_g' }] },
      { text: 'unreachable' },
    ]);
    const error = await run(model).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApplicationFaultError);
    expect((error as ApplicationFaultError).cause).toBeInstanceOf(QueryFailedError);
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

  it('rejects the run the same way with applicationFaultMiddleware too', async () => {
    const { run, failResolver } = await setup();
    const fault = failResolver();
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'read_document', args: { id: 1 }, id: 'call_m' }] },
      { text: 'unreachable' },
    ]);
    await expect(run(model, [applicationFaultMiddleware()])).rejects.toMatchObject({
      constructor: ApplicationFaultError,
      cause: fault,
    });
    expect(shown(model)).not.toContain('ECONNREFUSED');
  });

  it.each([
    ['inside applicationFaultMiddleware', () => [applicationFaultMiddleware(), errorsAsMessages()]],
    ['outside applicationFaultMiddleware', () => [errorsAsMessages(), applicationFaultMiddleware()]],
    ['without applicationFaultMiddleware', () => [errorsAsMessages()]],
  ])('shows an error-catching middleware %s only the fixed message, never the fault', async (_, middleware) => {
    const { run, failResolver, executions } = await setup();
    failResolver();
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'read_document', args: { id: 1 }, id: 'call_c' }] },
      { text: 'Sorry, that failed.' },
    ]);
    // The middleware catches, so the run carries on (ADR 0014): what the model reads is the fixed message.
    await run(model, middleware());
    model.assertScriptConsumed();
    expect(shown(model)).not.toContain('ECONNREFUSED');
    expect(shown(model)).not.toContain('QueryFailedError');
    expect(model.toolMessages().map((m) => m.content)).toEqual([
      'Tool failed: Tool "read_document" (capability "documents.read") stopped on an application fault: the run must fail. The fault is this error\'s cause.',
    ]);
    expect(executions).toHaveLength(0);
  });

  it("passes another tool's error through applicationFaultMiddleware unchanged, so the run rejects with it (control)", async () => {
    const { contexts } = await setup();
    const fault = new QueryFailedError('SELECT 1', [], new Error(DRIVER_TEXT));
    const plain = tool(
      async () => {
        throw fault;
      },
      { name: 'plain_tool', description: 'Not a Verdict tool', schema: z.object({}) },
    );
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'plain_tool', args: {}, id: 'call_p' }] },
      { text: 'unreachable' },
    ]);
    const agent = createAgent({ model, tools: [plain], middleware: [applicationFaultMiddleware()] });
    await expect(contexts.run(alice, () => agent.invoke({ messages: [new HumanMessage('go')] }))).rejects.toBe(fault);
    expect(shown(model)).not.toContain('ECONNREFUSED');
  });

  it.each([
    ['null', null],
    ['undefined', undefined],
    ['a string', `QueryFailedError: ${DRIVER_TEXT}`],
    ['a plain object', { message: DRIVER_TEXT }],
    ['a number', 5432],
  ])('rejects the run when a resolver throws %s, as for an Error', async (_, thrown) => {
    const { run, hooks } = await setup();
    hooks.onResolve = () => {
      throw thrown;
    };
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'read_document', args: { id: 1 }, id: 'call_n' }] },
      { text: 'unreachable' },
    ]);
    const error = await run(model).then(
      () => 'the run carried on',
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ApplicationFaultError);
    expect((error as ApplicationFaultError).cause).toBe(thrown);
    expect(model.transcript).toHaveLength(1);
    expect(shown(model)).not.toContain('ECONNREFUSED');
    expect(shown(model)).not.toContain('5432');
  });

  it('hands a caller that invokes the tool with a tool call an error that will not become model text', async () => {
    const { tools, contexts, failResolver } = await setup();
    const fault = failResolver();
    const invocation = contexts.run(alice, () =>
      tools[0].invoke({ name: 'read_document', args: { id: 1 }, id: 'call_direct', type: 'tool_call' }),
    );
    const error = await invocation.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApplicationFaultError);
    expect(error).toMatchObject({ code: 'VERDICT_APPLICATION_FAULT', cause: fault });
    expect((error as Error).message).not.toContain('ECONNREFUSED');
    // Converting it to text throws the error itself: a log line `failed: ${error}` crashes, without the fault's text.
    expect(() => `${String(error)}`).toThrow(error as Error);
    expect(() => 'failed: ' + (error as string)).toThrow(error as Error);
    expect(JSON.stringify(error)).not.toContain('ECONNREFUSED');
  });
});

describe('an application fault in a Verdict tool, with toolRetryMiddleware', () => {
  it("carries on by default (onFailure: 'continue'), and the model reads only the error's class, never the fault", async () => {
    const { run, failResolver, resolveCalls } = await setup();
    failResolver();
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'read_document', args: { id: 1 }, id: 'call_r' }] },
      { text: 'The document is unavailable.' },
    ]);
    await run(model, [toolRetryMiddleware({ maxRetries: 1, initialDelayMs: 0 })]);
    model.assertScriptConsumed();
    expect(resolveCalls()).toBe(2);
    expect(model.toolMessages().map((m) => m.content)).toEqual([
      "Tool 'read_document' failed after 2 attempts with ApplicationFaultError",
    ]);
    expect(shown(model)).not.toContain('ECONNREFUSED');
    expect(shown(model)).not.toContain('QueryFailedError');
  });

  it("fails the run with onFailure: 'error'", async () => {
    const { run, failResolver } = await setup();
    const fault = failResolver();
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'read_document', args: { id: 1 }, id: 'call_re' }] },
      { text: 'unreachable' },
    ]);
    await expect(
      run(model, [toolRetryMiddleware({ maxRetries: 1, initialDelayMs: 0, onFailure: 'error' })]),
    ).rejects.toMatchObject({
      constructor: ApplicationFaultError,
      cause: fault,
    });
    expect(model.transcript).toHaveLength(1);
  });

  it('answers after a retry that succeeds (control)', async () => {
    const { run, failResolver, hooks } = await setup();
    const fault = failResolver();
    let failures = 1;
    hooks.onResolve = () => {
      if (failures-- > 0) throw fault;
    };
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'read_document', args: { id: 1 }, id: 'call_rs' }] },
      { text: 'Here it is.' },
    ]);
    await run(model, [toolRetryMiddleware({ maxRetries: 1, initialDelayMs: 0 })]);
    model.assertScriptConsumed();
    expect(model.toolMessages().map((m) => m.content)).toEqual(['{"id":1,"title":"alice plan"}']);
  });
});
