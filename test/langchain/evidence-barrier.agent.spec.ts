import { describe, expect, it } from '@jest/globals';
import { HumanMessage, ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { createAgent, createMiddleware } from 'langchain';
import { z } from 'zod';
import {
  ActionContextStore,
  type DecisionRecord,
  EvidenceWriteFailedError,
  ExecutionTargetPolicy,
  InMemoryEvidenceRecorder,
  VerdictConfigurationError,
  defineCapability,
  fingerprintString,
  fromProposal,
} from '@verdict/nestjs';
import { VerdictLangChainModule, VerdictTools, evidenceBarrier } from '@verdict/nestjs/langchain';
import { ScriptedChatModel } from '../../libs/testing/src/scripted-chat-model.js';
import { type Document, alice, documentsFixture } from '../pipeline/documents.fixture.js';

/**
 * An evidence recorder whose writes the test sees start and finish, and can hold open (`gate`) or fail. Everything
 * that happens in a run goes to one log, in order.
 */
class ObservedRecorder extends InMemoryEvidenceRecorder {
  readonly log: string[] = [];
  gate: Promise<void> = Promise.resolve();
  failure: Error | undefined;

  override async recordDecisions(records: readonly DecisionRecord[]): Promise<void> {
    this.log.push('evidence write started');
    await this.gate;
    if (this.failure !== undefined) throw this.failure;
    await super.recordDecisions(records);
    this.log.push('evidence durable');
  }
}

/** A middleware inside the barrier that logs each tool result as it comes back and each model call as it is made. */
function probe(log: string[], onToolResult: () => void = () => undefined) {
  return createMiddleware({
    name: 'Probe',
    wrapToolCall: async (request, handler) => {
      const result = await handler(request);
      log.push(`tool returned ${request.toolCall.id}`);
      onToolResult();
      return result;
    },
    wrapModelCall: (request, handler) => {
      const results = request.messages.filter((message) => ToolMessage.isInstance(message)).length;
      log.push(`model called with ${results} tool result(s)`);
      return handler(request);
    },
  });
}

async function setup() {
  const fixture = documentsFixture();
  const load = (tenant: string | null, id: number) => fixture.load(tenant, id);
  const documentId = z.object({ id: z.number().int() });
  const peek = (name: string, options: { readOnly?: boolean; mutates?: boolean }) =>
    defineCapability(
      {
        name,
        description: 'Read a document',
        action: 'read',
        subject: 'Document',
        arguments: documentId,
        resolveTarget: fromProposal(documentId, ({ arguments: args, context }) => load(context.tenant, args.id)),
        executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot<Document>({
          name: 'document-snapshot',
          identity: (doc) => ({ tenant: doc.tenant, id: doc.id }),
        }),
        ...options,
      },
      (action) => ({ id: action.target.id, title: action.target.title }),
    );
  const recorder = new ObservedRecorder();
  const { moduleRef } = await fixture.boot({
    evidence: recorder,
    imports: [VerdictLangChainModule],
    capabilities: [peek('documents.peek', { readOnly: true }), peek('documents.look', {})],
  });
  const definition = tool(async () => 'LEAKED', {
    name: 'read_document',
    description: 'Read one document by id',
    schema: z.object({ id: z.number().int() }),
  });
  const tools = moduleRef.get(VerdictTools);
  const contexts = moduleRef.get(ActionContextStore);
  const run = async (capability: string, middleware: ReturnType<typeof createMiddleware>[], returnDirect = false) => {
    const bound = tools.bound(definition, capability);
    bound.returnDirect = returnDirect;
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'read_document', args: { id: 1 }, id: 'call_read' }] },
      { text: 'Your plan is ready.' },
    ]);
    const agent = createAgent({ model, tools: [bound], middleware });
    const outcome = contexts.run(alice, () => agent.invoke({ messages: [new HumanMessage('show my plan')] }));
    return { model, outcome };
  };
  /** Holds the next evidence write open until the returned function is called. */
  const holdNextWrite = () => {
    let open!: () => void;
    recorder.gate = new Promise<void>((resolve) => (open = resolve));
    return () => open();
  };
  return { recorder, run, holdNextWrite, definition, tools, contexts };
}

const readResult = JSON.stringify({ id: 1, title: 'alice plan' });

describe('evidenceBarrier(): a read-only call returns while its evidence is written, and no model reads it before', () => {
  it("returns a read-only call's result before its write is durable, and calls the model with it only after", async () => {
    const { recorder, run, holdNextWrite } = await setup();
    // The write is let through only once the tool has returned: had the call awaited it, the run would never end.
    const open = holdNextWrite();
    const { model, outcome } = await run('documents.peek', [evidenceBarrier(), probe(recorder.log, open)]);
    await outcome;
    expect(recorder.log).toEqual([
      'model called with 0 tool result(s)',
      'evidence write started',
      'tool returned call_read',
      'evidence durable',
      'model called with 1 tool result(s)',
    ]);
    expect(model.toolMessages().map((message) => message.content)).toEqual([readResult]);
    expect(recorder.decisions().map((record) => record.toolCallFingerprint)).toContain(fingerprintString('call_read'));
  });

  it('fails the run before the model reads the result when the held write fails', async () => {
    const { recorder, run } = await setup();
    recorder.failure = new Error('evidence store is down');
    const { model, outcome } = await run('documents.peek', [evidenceBarrier(), probe(recorder.log)]);
    // LangChain hands a model-call middleware's error over as its MiddlewareError's cause.
    const failure = await outcome.then(
      () => undefined,
      (error: Error) => error,
    );
    expect(failure?.cause).toBeInstanceOf(EvidenceWriteFailedError);
    expect(recorder.log).toEqual([
      'model called with 0 tool result(s)',
      'evidence write started',
      'tool returned call_read',
    ]);
    expect(model.toolMessages()).toEqual([]);
    expect(model.transcript).toHaveLength(1);
  });

  it('fails a run that ends with the tool result (returnDirect) when the held write fails', async () => {
    const { recorder, run } = await setup();
    recorder.failure = new Error('evidence store is down');
    const { outcome } = await run('documents.peek', [evidenceBarrier(), probe(recorder.log)], true);
    await expect(outcome).rejects.toThrow(EvidenceWriteFailedError);
    expect(recorder.log).toEqual([
      'model called with 0 tool result(s)',
      'evidence write started',
      'tool returned call_read',
    ]);
  });

  it('ends a run that ends with the tool result (returnDirect) with its evidence durable', async () => {
    const { recorder, run } = await setup();
    const { outcome } = await run('documents.peek', [evidenceBarrier(), probe(recorder.log)], true);
    const state = await outcome;
    expect(state.messages.at(-1)?.content).toBe(readResult);
    expect(recorder.decisions().map((record) => record.toolCallFingerprint)).toContain(fingerprintString('call_read'));
  });

  it('awaits the write inside the call for a capability not declared readOnly', async () => {
    const { recorder, run } = await setup();
    const { model, outcome } = await run('documents.look', [evidenceBarrier(), probe(recorder.log)]);
    await outcome;
    expect(recorder.log).toEqual([
      'model called with 0 tool result(s)',
      'evidence write started',
      'evidence durable',
      'tool returned call_read',
      'model called with 1 tool result(s)',
    ]);
    expect(model.toolMessages().map((message) => message.content)).toEqual([readResult]);
  });

  it('awaits the write inside the call without the barrier, and a failed write fails the call', async () => {
    const { recorder, run } = await setup();
    const { outcome } = await run('documents.peek', [probe(recorder.log)]);
    await outcome;
    expect(recorder.log).toEqual([
      'model called with 0 tool result(s)',
      'evidence write started',
      'evidence durable',
      'tool returned call_read',
      'model called with 1 tool result(s)',
    ]);
    const failing = await setup();
    failing.recorder.failure = new Error('evidence store is down');
    const { model, outcome: failed } = await failing.run('documents.peek', [probe(failing.recorder.log)]);
    await expect(failed).rejects.toThrow();
    expect(failing.recorder.log).not.toContain('tool returned call_read');
    expect(model.toolMessages()).toEqual([]);
  });

  it("awaits a sub-agent's read-only call inside the barrier's tool call, even with the same tool-call id", async () => {
    const { recorder, definition, tools, contexts } = await setup();
    // The sub-agent has no barrier: a failed write must stop its call before its own model reads the result.
    recorder.failure = new Error('evidence store is down');
    const innerModel = new ScriptedChatModel([
      { toolCalls: [{ name: 'read_document', args: { id: 1 }, id: 'call_read' }] },
      { text: 'The plan is read.' },
    ]);
    const inner = createAgent({
      model: innerModel,
      tools: [tools.bound(definition, 'documents.peek')],
      middleware: [probe(recorder.log)],
    });
    const helper = tool(
      async () => {
        const state = await inner.invoke({ messages: [new HumanMessage('read document 1')] });
        return String(state.messages.at(-1)?.content);
      },
      { name: 'ask_helper', description: 'Ask the helper agent', schema: z.object({}) },
    );
    const outer = createAgent({
      model: new ScriptedChatModel([
        { toolCalls: [{ name: 'ask_helper', args: {}, id: 'call_read' }] },
        { text: 'Done.' },
      ]),
      tools: [helper],
      middleware: [evidenceBarrier()],
    });
    await expect(
      contexts.run(alice, () => outer.invoke({ messages: [new HumanMessage('ask the helper')] })),
    ).rejects.toThrow();
    expect(recorder.log).toEqual(['model called with 0 tool result(s)', 'evidence write started']);
    expect(innerModel.toolMessages()).toEqual([]);
  });

  it('refuses at boot a capability declared both readOnly and mutates', async () => {
    const { boot } = documentsFixture();
    const both = defineCapability(
      {
        name: 'documents.touch',
        description: 'Touch a document',
        action: 'read',
        subject: 'Document',
        arguments: z.object({ id: z.number().int() }),
        resolveTarget: fromProposal(() => null as unknown as Document),
        executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot<Document>({
          name: 'snapshot',
          identity: (d) => d.id,
        }),
        readOnly: true,
        mutates: true,
      },
      () => 'touched',
    );
    await expect(boot({ capabilities: [both] })).rejects.toThrow(VerdictConfigurationError);
  });
});
