import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { Injectable, Module } from '@nestjs/common';
import {
  type Span,
  SpanKind,
  type SpanOptions,
  SpanStatusCode,
  type Tracer,
  type TracerProvider,
  context,
  trace,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { createAgent } from 'langchain';
import { z } from 'zod';
import {
  ActionContextStore,
  type BudgetReservationRequest,
  InMemoryBudgetStore,
  InMemoryEvidenceRecorder,
  VERDICT_TRACER_NAME,
  VerdictService,
  actorFingerprint,
  fingerprintString,
  type ActionContext,
} from '@verdict/nestjs';
import { VerdictPipeline } from '../../packages/verdict/src/pipeline/verdict-pipeline.js';
import { VerdictLangChainModule, VerdictTools, applicationFaultMiddleware } from '@verdict/nestjs/langchain';
import { ScriptedChatModel } from '../../libs/testing/src/scripted-chat-model.js';
import { alice, bob, documentsFixture } from '../pipeline/documents.fixture.js';

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

/** Values the model sent that no span may carry. */
const SECRET_TITLE = 'Merger plan: acquire Globex for 4.2B';

async function setup() {
  const fixture = documentsFixture();
  const { moduleRef, evidence } = await fixture.boot();
  const within = <T>(context: ActionContext, run: () => Promise<T>) =>
    moduleRef.get(ActionContextStore).run(context, run);
  return {
    ...fixture,
    moduleRef,
    within,
    service: moduleRef.get(VerdictService),
    pipeline: moduleRef.get(VerdictPipeline),
    records: () => (evidence as InMemoryEvidenceRecorder).decisions(),
  };
}

/** Everything a span exports that could carry a value: name, attributes, events, status message, links. */
const exported = (spans: readonly ReadableSpan[]) =>
  JSON.stringify(
    spans.map((span) => [span.name, span.attributes, span.events, span.status, span.links, span.resource.attributes]),
  );

describe('one OpenTelemetry span per mediated tool call', () => {
  it('follows the GenAI execute_tool conventions with Verdict attributes, and nothing else', async () => {
    const { within, service } = await setup();
    const result = await within(alice, () =>
      service.execute({
        capability: 'documents.rename',
        arguments: { id: 1, title: SECRET_TITLE },
        toolCallId: 'call_Zq81LmX0',
      }),
    );
    expect(result.executed).toBe(true);

    const spans = exporter.getFinishedSpans();
    expect(spans).toHaveLength(1);
    const [span] = spans;
    expect(span.name).toBe('execute_tool documents.rename');
    expect(span.kind).toBe(SpanKind.INTERNAL);
    expect(span.instrumentationScope.name).toBe(VERDICT_TRACER_NAME);
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'documents.rename',
      'gen_ai.tool.type': 'function',
      'gen_ai.tool.call.id': fingerprintString('call_Zq81LmX0'),
      'verdict.capability': 'documents.rename',
      'verdict.tool_kind': 'service',
      'verdict.correlation_id': result.correlationId,
      'verdict.stage': 'execution',
      'verdict.disposition': 'permit',
      'verdict.executed': true,
    });
    expect(exported(spans)).not.toContain('call_Zq81LmX0');
    expect(exported(spans)).not.toContain(SECRET_TITLE);
  });

  it('records the final stage and disposition of a call that was not executed, as a success of the boundary', async () => {
    const { within, service, executions } = await setup();
    const denied = await within(bob, () =>
      service.execute({ capability: 'documents.rename', arguments: { id: 1, title: SECRET_TITLE } }),
    );
    expect(denied.executed).toBe(false);
    expect(executions).toHaveLength(0);

    const [span] = exporter.getFinishedSpans();
    expect(span.attributes).toMatchObject({
      'verdict.stage': 'proposal',
      'verdict.disposition': 'deny',
      'verdict.executed': false,
      'verdict.correlation_id': denied.correlationId,
    });
    expect(span.attributes).not.toHaveProperty('gen_ai.tool.call.id');
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(exported([span])).not.toContain(SECRET_TITLE);
  });

  it('marks an application fault as an error by its type alone, and the fault still propagates', async () => {
    const { within, service, hooks } = await setup();
    hooks.onResolve = () => {
      throw new RangeError(`connection refused while loading "${SECRET_TITLE}"`);
    };
    await expect(
      within(alice, () =>
        service.execute({ capability: 'documents.read', arguments: { id: 1 }, toolCallId: 'call_fault' }),
      ),
    ).rejects.toThrow(RangeError);

    const [span] = exporter.getFinishedSpans();
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR });
    expect(span.attributes['error.type']).toBe('RangeError');
    expect(span.attributes).not.toHaveProperty('verdict.disposition');
    expect(exported([span])).not.toContain(SECRET_TITLE);
    expect(exported([span])).not.toContain('connection refused');
  });

  it('spans evaluate and guard too, named by their tool kind', async () => {
    const { within, service, pipeline } = await setup();
    await within(alice, () => service.evaluate({ capability: 'documents.read', arguments: { id: 1 } }));
    await within(alice, () =>
      pipeline.guard({ capability: 'documents.read', arguments: { id: 1 } }, async () => 'legacy read'),
    );

    expect(
      exporter
        .getFinishedSpans()
        .map((span) => [
          span.attributes['verdict.tool_kind'],
          span.attributes['verdict.stage'],
          span.attributes['verdict.executed'],
        ]),
    ).toEqual([
      ['evaluation', 'execution', false],
      ['guarded', 'proposal', true],
    ]);
  });

  it('keeps a name no capability has as its fingerprint, as evidence does', async () => {
    const { within, service } = await setup();
    await within(alice, () => service.execute({ capability: 'drop_all_tables', arguments: {} }));

    const [span] = exporter.getFinishedSpans();
    expect(span.name).toBe(`execute_tool unknown:${fingerprintString('drop_all_tables')}`);
    expect(exported([span])).not.toContain('drop_all_tables');
  });

  it('is a no-op without a registered SDK: the call runs and nothing is exported', async () => {
    const { within, service } = await setup();
    trace.disable();
    try {
      const result = await within(alice, () => service.execute({ capability: 'documents.read', arguments: { id: 1 } }));
      expect(result.executed).toBe(true);
      expect(exporter.getFinishedSpans()).toEqual([]);
    } finally {
      trace.setGlobalTracerProvider(provider);
    }
  });
});

/** What a broken tracer throws: an exporter's or a vendor shim's bug, nothing of the call's. */
class TracerBroken extends Error {}

/**
 * A provider whose tracer hands out the SDK's recording spans, with one span method throwing, or whose
 * `startActiveSpan` throws before calling back, throws after it, or calls back twice.
 */
/** The callback a tracer started with `start: 'later'` calls back, once it has. */
let lateCallback: Promise<unknown> | undefined;

function brokenTracing(broken: {
  readonly span?: 'setAttributes' | 'setAttribute';
  readonly start?: 'before' | 'after' | 'twice' | 'never' | 'later';
}): TracerProvider {
  const inner = provider.getTracer('broken');
  const tracer: Tracer = {
    startSpan: (...args: Parameters<Tracer['startSpan']>) => inner.startSpan(...args),
    startActiveSpan: ((name: string, options: SpanOptions, fn: (span: Span) => unknown) => {
      if (broken.start === 'before') throw new TracerBroken('tracer down');
      if (broken.start === 'never') return undefined;
      const span = inner.startSpan(name, options);
      if (broken.start === 'later') {
        lateCallback = new Promise((called) => setImmediate(() => called(fn(span))));
        return undefined;
      }
      if (broken.span !== undefined)
        span[broken.span] = () => {
          throw new TracerBroken('exporter down');
        };
      const answer = fn(span);
      if (broken.start === 'twice') fn(span);
      if (broken.start === 'after') throw new TracerBroken('tracer down');
      return answer;
    }) as Tracer['startActiveSpan'],
  };
  return { getTracer: () => tracer };
}

describe("telemetry never changes a call's outcome (ADR 0165)", () => {
  const withTracing = (broken: Parameters<typeof brokenTracing>[0]) => {
    trace.disable();
    trace.setGlobalTracerProvider(brokenTracing(broken));
  };
  afterEach(() => {
    trace.disable();
    trace.setGlobalTracerProvider(provider);
  });
  const rename = { capability: 'documents.rename', arguments: { id: 1, title: 'Q3 plan' } };

  it('attack: a span that cannot be marked leaves an executed permit answered as executed', async () => {
    const { within, service, executions } = await setup();
    withTracing({ span: 'setAttributes' });
    const result = await within(alice, () => service.execute(rename));
    expect(result).toMatchObject({ executed: true, decision: { disposition: 'permit' } });
    expect(executions).toHaveLength(1);
    // The span is still ended, without the attributes it could not take.
    expect(exporter.getFinishedSpans().map((span) => span.name)).toEqual(['execute_tool documents.rename']);
  });

  it('attack: a span that cannot be marked leaves a deny a decision, not an exception', async () => {
    const { within, service, executions } = await setup();
    withTracing({ span: 'setAttributes' });
    const result = await within(bob, () => service.execute(rename));
    expect(result).toMatchObject({ executed: false, decision: { disposition: 'deny' } });
    expect(executions).toHaveLength(0);
  });

  it('attack: a span that cannot be marked leaves the application fault propagating unchanged', async () => {
    const { within, service, hooks } = await setup();
    hooks.onResolve = () => {
      throw new RangeError('db down');
    };
    withTracing({ span: 'setAttribute' });
    await expect(
      within(alice, () => service.execute({ capability: 'documents.read', arguments: { id: 1 } })),
    ).rejects.toThrow(RangeError);
  });

  it('attack: a tracer that cannot start the span runs the call once, without it', async () => {
    const { within, service, executions } = await setup();
    withTracing({ start: 'before' });
    const result = await within(alice, () => service.execute(rename));
    expect(result).toMatchObject({ executed: true, decision: { disposition: 'permit' } });
    expect(executions).toHaveLength(1);
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  it('attack: a tracer that throws after calling back, or calls back twice, runs the call once', async () => {
    const { within, service, executions } = await setup();
    for (const start of ['after', 'twice'] as const) {
      withTracing({ start });
      const result = await within(alice, () => service.execute(rename));
      expect(result).toMatchObject({ executed: true, decision: { disposition: 'permit' } });
    }
    expect(executions).toHaveLength(2);
  });

  it('attack: a tracer that never calls back, or calls back after the call ran, runs it once; a late span is ended', async () => {
    const { within, service, executions } = await setup();
    withTracing({ start: 'never' });
    expect(await within(alice, () => service.execute(rename))).toMatchObject({ executed: true });
    withTracing({ start: 'later' });
    expect(await within(alice, () => service.execute(rename))).toMatchObject({ executed: true });
    // The late callback answers the call that already ran, and ends the span it was given.
    expect(await await lateCallback).toMatchObject({ executed: true });
    expect(executions).toHaveLength(2);
    expect(exporter.getFinishedSpans().map((span) => span.name)).toEqual(['execute_tool documents.rename']);
  });

  it('control: the same tracer with nothing broken spans each call with its outcome, and runs it once', async () => {
    const { within, service, executions } = await setup();
    withTracing({});
    expect(await within(alice, () => service.execute(rename))).toMatchObject({ executed: true });
    expect(await within(bob, () => service.execute(rename))).toMatchObject({ executed: false });
    expect(executions).toHaveLength(1);
    expect(exporter.getFinishedSpans().map((span) => span.attributes['verdict.disposition'])).toEqual([
      'permit',
      'deny',
    ]);
  });
});

/** A budget store that cannot count a refused proposal (a one-unit reservation): its database is unreachable. */
class RefusalCountOutage extends InMemoryBudgetStore {
  override reserve(request: BudgetReservationRequest) {
    if (request.amount === 1) return Promise.reject(new RangeError('budget database unreachable'));
    return super.reserve(request);
  }
}

describe('spans of calls counted toward call ceilings (docs/budgets.md)', () => {
  const inConversation: ActionContext = { ...alice, metadata: { conversationId: 'c-1' } };

  async function withCeilings(budgets: InMemoryBudgetStore) {
    // One instant for the whole test: the ceilings' window (a UTC day) cannot roll over between two calls.
    const now = new Date();
    const { moduleRef } = await documentsFixture().boot({
      budgets,
      callCeilings: { deniedProposals: 2 },
      clock: () => now,
    });
    // alice may not read bob's document 2: a deny, which counts toward the conversation's refused proposals.
    const readBobsDocument = () =>
      moduleRef
        .get(ActionContextStore)
        .run(inConversation, () =>
          moduleRef.get(VerdictService).execute({ capability: 'documents.read', arguments: { id: 2 } }),
        );
    return { moduleRef, readBobsDocument };
  }

  const outcome = (span: ReadableSpan) => ({
    status: span.status.code,
    errorType: span.attributes['error.type'],
    disposition: span.attributes['verdict.disposition'],
  });

  it('attack: the budget store failing to count a refusal marks the span as the fault it is, not as a deny', async () => {
    const { moduleRef, readBobsDocument } = await withCeilings(new RefusalCountOutage());
    await expect(readBobsDocument()).rejects.toThrow(RangeError);

    const spans = exporter.getFinishedSpans();
    expect(spans).toHaveLength(1);
    expect(outcome(spans[0]!)).toEqual({
      status: SpanStatusCode.ERROR,
      errorType: 'RangeError',
      disposition: undefined,
    });
    await moduleRef.close();
  });

  it('control: a counted refusal is a deny with its status unset, and the count stops the conversation', async () => {
    const { moduleRef, readBobsDocument } = await withCeilings(new InMemoryBudgetStore());
    expect((await readBobsDocument()).decision.stage).toBe('proposal');
    expect((await readBobsDocument()).decision.stage).toBe('proposal');
    // Both refusals were counted: the conversation is stopped.
    expect((await readBobsDocument()).decision.stage).toBe('call_ceiling');

    const spans = exporter.getFinishedSpans();
    expect(spans.map(outcome)).toEqual(
      Array.from({ length: 3 }, () => ({ status: SpanStatusCode.UNSET, errorType: undefined, disposition: 'deny' })),
    );
    await moduleRef.close();
  });
});

describe('spans of a LangChain agent run', () => {
  it('exports one span per tool call, each matching its evidence, with no raw tool-call id or argument', async () => {
    const fixture = documentsFixture();
    const readDocument = tool(async () => 'LEAKED', {
      name: 'read_document',
      description: 'Read one document by id',
      schema: z.object({ id: z.number().int() }),
    });
    const renameDocument = tool(async () => 'LEAKED', {
      name: 'rename_document',
      description: 'Rename one document',
      schema: z.object({ id: z.number().int(), title: z.string() }),
    });
    const legacyRead = tool(async ({ id }: { id: number }) => `legacy read of ${id}`, {
      name: 'legacy_read_document',
      description: 'Read a document (legacy handler)',
      schema: z.object({ id: z.number().int() }),
    });
    @Injectable()
    class AssistantTools {
      constructor(readonly verdictTools: VerdictTools) {}
      all() {
        return [
          this.verdictTools.bound(readDocument, 'documents.read'),
          this.verdictTools.bound(renameDocument, 'documents.rename'),
          this.verdictTools.guarded(legacyRead, 'documents.read'),
        ];
      }
    }
    @Module({ imports: [VerdictLangChainModule], providers: [AssistantTools] })
    class AssistantModule {}
    const { moduleRef, evidence } = await fixture.boot({ imports: [AssistantModule] });
    const rawIds = ['call_foreign_8Hq2', 'call_rename_Kx7w', 'call_legacy_3Pz0'];
    const model = new ScriptedChatModel([
      { toolCalls: [{ name: 'read_document', args: { id: 2 }, id: rawIds[0] }] },
      { toolCalls: [{ name: 'rename_document', args: { id: 1, title: SECRET_TITLE }, id: rawIds[1] }] },
      { toolCalls: [{ name: 'legacy_read_document', args: { id: 1 }, id: rawIds[2] }] },
      { text: 'Done.' },
    ]);
    const agent = createAgent({
      model,
      tools: moduleRef.get(AssistantTools).all(),
      middleware: [applicationFaultMiddleware()],
    });

    // The application's own span around the agent run: Verdict's spans are its children.
    await trace.getTracer('storefront').startActiveSpan('invoke_agent assistant', async (agentSpan) => {
      await moduleRef
        .get(ActionContextStore)
        .run(alice, () => agent.invoke({ messages: [new HumanMessage('rename my plan')] }));
      agentSpan.end();
    });
    model.assertScriptConsumed();

    // Spans finish in order: the three tool calls, then the agent's.
    const finished = exporter.getFinishedSpans();
    const agentSpan = finished[finished.length - 1];
    const spans = finished.slice(0, -1);
    expect(agentSpan.name).toBe('invoke_agent assistant');
    expect(spans.map((span) => span.parentSpanContext?.spanId)).toEqual(
      spans.map(() => agentSpan.spanContext().spanId),
    );
    expect(
      spans.map((span) => [
        span.name,
        span.attributes['gen_ai.tool.call.id'],
        span.attributes['verdict.tool_kind'],
        span.attributes['verdict.stage'],
        span.attributes['verdict.disposition'],
      ]),
    ).toEqual([
      ['execute_tool documents.read', fingerprintString(rawIds[0]), 'bound', 'proposal', 'deny'],
      ['execute_tool documents.rename', fingerprintString(rawIds[1]), 'bound', 'execution', 'permit'],
      ['execute_tool documents.read', fingerprintString(rawIds[2]), 'guarded', 'proposal', 'permit'],
    ]);
    // Each span names the run its evidence records: correlation id, tool call and actor line up.
    const records = (evidence as InMemoryEvidenceRecorder).decisions();
    for (const span of spans) {
      const run = records.filter((record) => record.correlationId === span.attributes['verdict.correlation_id']);
      expect(run.length).toBeGreaterThan(0);
      expect(new Set(run.map((record) => [record.toolCallFingerprint, record.actorFingerprint].join()))).toEqual(
        new Set([[span.attributes['gen_ai.tool.call.id'], actorFingerprint(alice)].join()]),
      );
    }
    const everything = exported(spans);
    for (const raw of [...rawIds, SECRET_TITLE, 'rename_document', 'legacy_read_document'])
      expect(everything).not.toContain(raw);
  });
});
