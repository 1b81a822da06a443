import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { GraphInterrupt, MemorySaver } from '@langchain/langgraph';
import { Injectable, Module } from '@nestjs/common';
import { SpanStatusCode, context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { createAgent } from 'langchain';
import { z } from 'zod';
import {
  ActionContextStore,
  ApplicationFaultError,
  CallCeilingReachedError,
  InMemoryApprovalReceiptStore,
  InMemoryBudgetStore,
  InMemoryExecutionClaimStore,
  atMostOnce,
} from '@verdict/nestjs';
import { VerdictLangChainModule, VerdictTools, applicationFaultMiddleware } from '@verdict/nestjs/langchain';
import { ScriptedChatModel } from '@verdict/nestjs/testing/langchain';
import { VerdictPipeline } from '../../packages/verdict/src/pipeline/verdict-pipeline.js';
import { ToolKind } from '../../packages/verdict/src/evidence/tool-kind.js';
import { archiveCapability } from '../approvals/archive.fixture.js';
import { alice, documentsFixture } from '../pipeline/documents.fixture.js';

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
beforeAll(() => {
  trace.setGlobalTracerProvider(provider);
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});
afterAll(async () => {
  context.disable();
  trace.disable();
  await provider.shutdown();
});
beforeEach(() => exporter.reset());

const OUTER = { name: 'delegate', args: { id: 1 }, id: 'outer_delegate_1' };
const ARCHIVE = { name: 'archive_document', args: { id: 1 }, id: 'inner_archive_1' };
/** alice may not read bob's document 2: a deny, counted toward the conversation's call ceilings. */
const readBobs = (n: number) => ({ name: 'read_document', args: { id: 2 }, id: `inner_read_${n}` });
const requester = { ...alice, metadata: { conversationId: 'conv-spans-adr-0189' } };

/**
 * An outer agent whose bound `documents.delegate` (at most once per document) runs a sub-agent in its executor, as
 * the docs' sub-agent pattern does; the sub-agent's model follows `script` over a bound `documents.archive` (which
 * requires confirmation) and `documents.read`. `fail` makes the executor throw an ordinary fault instead.
 */
async function delegating(script: ConstructorParameters<typeof ScriptedChatModel>[0], { fail = false } = {}) {
  const fixture = documentsFixture();
  const sub: { agent?: { invoke(input: unknown): Promise<{ messages: { content: unknown }[] }> } } = {};
  const delegate = fixture.documentCapability(
    {
      name: 'documents.delegate',
      description: 'Delegate work on a document to a sub-agent',
      atMostOnce: atMostOnce<{ id: number }, unknown>({ name: 'delegate-once', key: ({ arguments: a }) => a }),
    },
    async () => {
      if (fail) throw new RangeError('the document service is down');
      const state = await sub.agent!.invoke({ messages: [new HumanMessage('work on document 1')] });
      return String(state.messages.at(-1)!.content);
    },
  );
  const schema = z.object({ id: z.number().int() });
  const definition = (name: string) => tool(async () => 'never', { name, description: name, schema });
  @Injectable()
  class AgentTools {
    constructor(readonly tools: VerdictTools) {}
  }
  @Module({ imports: [VerdictLangChainModule], providers: [AgentTools] })
  class AgentModule {}
  const now = new Date();
  const { moduleRef } = await fixture.boot({
    capabilities: [archiveCapability(fixture, []), delegate],
    approvals: new InMemoryApprovalReceiptStore(),
    executionClaims: new InMemoryExecutionClaimStore(),
    budgets: new InMemoryBudgetStore(),
    callCeilings: { deniedProposals: 1 },
    clock: () => now,
    imports: [AgentModule],
  });
  const { tools } = moduleRef.get(AgentTools);
  sub.agent = createAgent({
    model: new ScriptedChatModel(script),
    tools: [
      tools.bound(definition(ARCHIVE.name), 'documents.archive'),
      tools.bound(definition('read_document'), 'documents.read'),
    ],
    middleware: [applicationFaultMiddleware()],
  });
  const outer = createAgent({
    model: new ScriptedChatModel([{ toolCalls: [OUTER] }, { text: 'outer done' }]),
    tools: [tools.bound(definition(OUTER.name), 'documents.delegate')],
    checkpointer: new MemorySaver(),
    middleware: [applicationFaultMiddleware()],
  });
  const config = { configurable: { thread_id: `thread-${Math.random()}` } };
  return {
    moduleRef,
    /** The outer run: what it answered, or what it threw. */
    run: () =>
      moduleRef
        .get(ActionContextStore)
        .run(requester, () => outer.invoke({ messages: [new HumanMessage('delegate')] }, config))
        .then(
          (state) => ({ state: state as { __interrupt__?: unknown[] }, thrown: undefined }),
          (thrown: unknown) => ({ state: undefined, thrown }),
        ),
    /** What the span of `documents.delegate` says of its outcome. */
    delegateSpan: () => outcome(spanOf('documents.delegate')),
  };
}

const spanOf = (capability: string): ReadableSpan => {
  const spans = exporter.getFinishedSpans().filter((span) => span.attributes['verdict.capability'] === capability);
  expect(spans).toHaveLength(1);
  return spans[0]!;
};

const outcome = (span: ReadableSpan) => ({
  status: span.status,
  errorType: span.attributes['error.type'],
  paused: span.attributes['verdict.paused'],
  stoppedAt: span.attributes['verdict.stopped_at'],
});

describe("the span of a call whose executor's sub-agent paused or was stopped (ADR 0189)", () => {
  it('attack: a sub-agent asking a human pauses the run; the outer call span is paused, not an error', async () => {
    const s = await delegating([{ toolCalls: [ARCHIVE] }, { text: 'inner done' }]);
    const { state, thrown } = await s.run();
    expect(thrown).toBeUndefined();
    expect(state!.__interrupt__).toHaveLength(1);

    expect(s.delegateSpan()).toEqual({
      status: { code: SpanStatusCode.UNSET },
      errorType: undefined,
      paused: true,
      stoppedAt: undefined,
    });
    // The sub-agent's own call asked for confirmation: a decision, not an error either.
    expect(spanOf('documents.archive').attributes['verdict.disposition']).toBe('require_confirmation');
    await s.moduleRef.close();
  });

  it('attack: a sub-agent stopped by a call ceiling; the outer call span is a policy stop, not an error', async () => {
    const s = await delegating([{ toolCalls: [readBobs(1)] }, { toolCalls: [readBobs(2)] }, { text: 'never' }]);
    const { thrown } = await s.run();
    expect(thrown).toBeInstanceOf(CallCeilingReachedError);

    expect(s.delegateSpan()).toEqual({
      status: { code: SpanStatusCode.UNSET },
      errorType: undefined,
      paused: undefined,
      stoppedAt: 'call_ceiling',
    });
    // The refused calls' own spans: the deny that was counted, then the deny at the ceiling.
    const inner = exporter
      .getFinishedSpans()
      .filter((span) => span.attributes['verdict.capability'] === 'documents.read')
      .map((span) => [span.attributes['verdict.stage'], span.attributes['verdict.disposition'], span.status.code]);
    expect(inner).toEqual([
      ['proposal', 'deny', SpanStatusCode.UNSET],
      ['call_ceiling', 'deny', SpanStatusCode.UNSET],
    ]);
    await s.moduleRef.close();
  });

  it('control: an executor that fails is an application fault: status ERROR and its error.type', async () => {
    const s = await delegating([{ text: 'never' }], { fail: true });
    const { thrown } = await s.run();
    expect(thrown).toBeInstanceOf(ApplicationFaultError);

    expect(s.delegateSpan()).toEqual({
      status: { code: SpanStatusCode.ERROR },
      errorType: 'RangeError',
      paused: undefined,
      stoppedAt: undefined,
    });
    await s.moduleRef.close();
  });
});

describe('InvocationOptions.isPause and the span', () => {
  async function direct(recognise: (error: unknown) => boolean) {
    const fixture = documentsFixture();
    const interrupting = fixture.documentCapability({ name: 'documents.interrupting', description: 'Pauses' }, () => {
      throw new GraphInterrupt([{ value: 'ask a human', id: 'interrupt-1' }]);
    });
    const { moduleRef } = await fixture.boot({ capabilities: [interrupting] });
    const thrown = await moduleRef
      .get(ActionContextStore)
      .run(alice, () =>
        moduleRef
          .get(VerdictPipeline)
          .execute({ capability: 'documents.interrupting', arguments: { id: 1 } }, ToolKind.Bound, {
            isPause: recognise,
          }),
      )
      .catch((error: unknown) => error);
    await moduleRef.close();
    return { thrown, span: outcome(spanOf('documents.interrupting')) };
  }

  it('attack: what the runtime recognises as its pause leaves the status unset, and is rethrown unchanged', async () => {
    const { thrown, span } = await direct((error) => error instanceof GraphInterrupt);
    expect(thrown).toBeInstanceOf(GraphInterrupt);
    expect(span).toEqual({
      status: { code: SpanStatusCode.UNSET },
      errorType: undefined,
      paused: true,
      stoppedAt: undefined,
    });
  });

  it('control: what it does not recognise, or a recogniser that throws, is an application fault', async () => {
    for (const recognise of [
      () => false,
      () => {
        throw new Error('recogniser down');
      },
    ]) {
      exporter.reset();
      const { thrown, span } = await direct(recognise);
      expect(thrown).toBeInstanceOf(GraphInterrupt);
      expect(span).toEqual({
        status: { code: SpanStatusCode.ERROR },
        errorType: 'GraphInterrupt',
        paused: undefined,
        stoppedAt: undefined,
      });
    }
  });
});
