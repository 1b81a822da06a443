import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { Command, GraphInterrupt, MemorySaver, interrupt } from '@langchain/langgraph';
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
  ModelBudgetExceededError,
  VerdictConfigurationError,
  VerdictService,
  atMostOnce,
} from '@verdict/nestjs';
import {
  ModelBudgets,
  VerdictLangChainModule,
  VerdictTools,
  applicationFaultMiddleware,
} from '@verdict/nestjs/langchain';
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
 * requires confirmation) and `documents.read`. `fail` makes the executor throw an ordinary fault instead; `budget`
 * gives the sub-agent's model a model budget (tokens per conversation) of that limit.
 */
async function delegating(
  script: ConstructorParameters<typeof ScriptedChatModel>[0],
  { fail = false, budget }: { fail?: boolean; budget?: number } = {},
) {
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
    ...(budget === undefined
      ? {}
      : {
          modelBudgets: {
            budgets: [
              { name: 'sub-agent-tokens', measure: 'tokens', limit: budget, per: 'conversation', window: 3_600 },
            ],
            maxOutputTokens: 40,
          },
        }),
    clock: () => now,
    imports: [AgentModule],
  });
  const { tools } = moduleRef.get(AgentTools);
  const budgeted =
    budget === undefined
      ? []
      : [
          moduleRef
            .get(ModelBudgets)
            .forAgent({ estimateInputTokens: () => 60 })
            .middleware(),
        ];
  sub.agent = createAgent({
    model: new ScriptedChatModel(script),
    tools: [
      tools.bound(definition(ARCHIVE.name), 'documents.archive'),
      tools.bound(definition('read_document'), 'documents.read'),
    ],
    middleware: [applicationFaultMiddleware(), ...budgeted],
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

  it('attack: a sub-agent stopped by its model budget; the outer call span is a policy stop, not an error', async () => {
    // 60 input tokens estimated and 40 reserved for the answer: a budget of 50 has no room for the first model call.
    const s = await delegating([{ text: 'never' }], { budget: 50 });
    const { thrown } = await s.run();
    // The outer run ends with the stop itself, not an application fault (ADR 0203).
    expect(thrown).toBeInstanceOf(ModelBudgetExceededError);

    expect(s.delegateSpan()).toEqual({
      status: { code: SpanStatusCode.UNSET },
      errorType: undefined,
      paused: undefined,
      stoppedAt: 'model_budget',
    });
    await s.moduleRef.close();
  });

  it('utility: a sub-agent within its model budget completes; the outer call span is a plain permit', async () => {
    const s = await delegating([{ text: 'inner done', usage: { input: 30, output: 10 } }], { budget: 1_000 });
    const { thrown } = await s.run();
    expect(thrown).toBeUndefined();

    const span = spanOf('documents.delegate');
    expect(outcome(span)).toEqual({
      status: { code: SpanStatusCode.UNSET },
      errorType: undefined,
      paused: undefined,
      stoppedAt: undefined,
    });
    expect([span.attributes['verdict.disposition'], span.attributes['verdict.executed']]).toEqual(['permit', true]);
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

describe('a policy stop the executor throws itself, or wrapped (ADR 0197)', () => {
  async function throwing(fault: () => unknown) {
    const fixture = documentsFixture();
    const stopped = fixture.documentCapability({ name: 'documents.stopped', description: 'Stops' }, () => {
      throw fault();
    });
    const { moduleRef } = await fixture.boot({ capabilities: [stopped] });
    const thrown = await moduleRef
      .get(ActionContextStore)
      .run(alice, () =>
        moduleRef.get(VerdictService).execute({ capability: 'documents.stopped', arguments: { id: 1 } }),
      )
      .catch((error: unknown) => error);
    await moduleRef.close();
    return { thrown, span: outcome(spanOf('documents.stopped')) };
  }
  const budgetStop = () => new ModelBudgetExceededError('daily-tokens', 'tokens', 'actor', new Date(0));

  it('attack: the quarantined model out of budget (ModelBudgetExceededError) is a policy stop', async () => {
    const { thrown, span } = await throwing(budgetStop);
    expect(thrown).toBeInstanceOf(ModelBudgetExceededError);
    expect(span).toEqual({
      status: { code: SpanStatusCode.UNSET },
      errorType: undefined,
      paused: undefined,
      stoppedAt: 'model_budget',
    });
  });

  it('attack: a call ceiling handed over as the cause of a wrapper is a policy stop too', async () => {
    const { thrown, span } = await throwing(
      () => new Error('Middleware failed', { cause: new CallCeilingReachedError('documents.read', 'read_document') }),
    );
    expect(thrown).toBeInstanceOf(Error);
    expect(span).toMatchObject({ status: { code: SpanStatusCode.UNSET }, errorType: undefined });
    expect(span.stoppedAt).toBe('call_ceiling');
  });

  it('control: a fault whose causes hold no policy stop is an application fault, named by the outer class', async () => {
    const { span } = await throwing(
      () => new TypeError('mapping failed', { cause: new Error('budget service: 50 tokens left', { cause: 'x' }) }),
    );
    expect(span).toEqual({
      status: { code: SpanStatusCode.ERROR },
      errorType: 'TypeError',
      paused: undefined,
      stoppedAt: undefined,
    });
  });

  it('attack: a fault whose `cause` getter throws is still an application fault: status ERROR, not left unset', async () => {
    const { span } = await throwing(() =>
      Object.defineProperty(new TypeError('mapping failed'), 'cause', {
        get() {
          throw new Error('lazy cause');
        },
      }),
    );
    expect(span).toEqual({
      status: { code: SpanStatusCode.ERROR },
      errorType: 'TypeError',
      paused: undefined,
      stoppedAt: undefined,
    });
  });
});

describe("a guarded tool's pause, and VerdictService.execute's (ADR 0197)", () => {
  const LEGACY = { name: 'legacy_archive', args: { id: 1 }, id: 'legacy_archive_1' };

  /**
   * An agent with a guarded `legacy_archive` for `documents.legacy` (at most once per document), whose own handler
   * asks a human with LangGraph's `interrupt`, or throws an ordinary fault when `fail`.
   */
  async function guarded({ fail = false } = {}) {
    const fixture = documentsFixture();
    const legacy = fixture.documentCapability(
      {
        name: 'documents.legacy',
        description: 'Archive a document (legacy handler)',
        atMostOnce: atMostOnce<{ id: number }, unknown>({ name: 'legacy-once', key: ({ arguments: a }) => a }),
      },
      () => 'never: the guarded handler runs',
    );
    const handler = tool(
      ({ id }: { id: number }) => {
        if (fail) throw new RangeError('the archive service is down');
        return `archived ${id} after ${String(interrupt({ question: 'archive?' }))}`;
      },
      { name: LEGACY.name, description: 'Archive a document', schema: z.object({ id: z.number().int() }) },
    );
    @Injectable()
    class AgentTools {
      constructor(readonly tools: VerdictTools) {}
    }
    @Module({ imports: [VerdictLangChainModule], providers: [AgentTools] })
    class AgentModule {}
    const claims = new InMemoryExecutionClaimStore();
    const { moduleRef } = await fixture.boot({
      capabilities: [legacy],
      executionClaims: claims,
      imports: [AgentModule],
    });
    const agent = createAgent({
      model: new ScriptedChatModel([{ toolCalls: [LEGACY] }, { text: 'done' }]),
      tools: [moduleRef.get(AgentTools).tools.guarded(handler, 'documents.legacy')],
      checkpointer: new MemorySaver(),
      middleware: [applicationFaultMiddleware()],
    });
    const config = { configurable: { thread_id: `thread-${Math.random()}` } };
    const { state, thrown } = await moduleRef
      .get(ActionContextStore)
      .run(requester, () => agent.invoke({ messages: [new HumanMessage('archive document 1')] }, config))
      .then(
        (answered) => ({ state: answered as { __interrupt__?: unknown[] }, thrown: undefined }),
        (error: unknown) => ({ state: undefined, thrown: error }),
      );
    const unresolved = (await claims.unresolved()).map((claim) => claim.status);
    const span = outcome(spanOf('documents.legacy'));
    return {
      state,
      thrown,
      unresolved,
      span,
      /** The human answers and the run resumes: the spans of `documents.legacy` since the pause. */
      resume: async () => {
        exporter.reset();
        await moduleRef
          .get(ActionContextStore)
          .run(requester, () => agent.invoke(new Command({ resume: 'yes' }), config));
        return exporter
          .getFinishedSpans()
          .filter((resumed) => resumed.attributes['verdict.capability'] === 'documents.legacy')
          .map((resumed) => [resumed.attributes['verdict.stage'], resumed.attributes['verdict.disposition']]);
      },
      close: () => moduleRef.close(),
    };
  }

  it('attack: a guarded handler asking a human pauses the run; its span is paused, not an error', async () => {
    const s = await guarded();
    const { state, thrown, unresolved, span } = s;
    expect(thrown).toBeUndefined();
    expect(state!.__interrupt__).toHaveLength(1);
    expect(span).toEqual({
      status: { code: SpanStatusCode.UNSET },
      errorType: undefined,
      paused: true,
      stoppedAt: undefined,
    });
    // ADR 0177 stands: a guarded call's claim is not released by a pause; an operator reconciles it, and the
    // resumed call is refused on its own span.
    expect(unresolved).toEqual(['indeterminate']);
    expect(await s.resume()).toEqual([['execution_claim', 'deny']]);
    await s.close();
  });

  it('control: a guarded handler that fails is an application fault; its claim is indeterminate too', async () => {
    const s = await guarded({ fail: true });
    const { thrown, unresolved, span } = s;
    expect(thrown).toBeInstanceOf(ApplicationFaultError);
    expect(span).toEqual({
      status: { code: SpanStatusCode.ERROR },
      errorType: 'RangeError',
      paused: undefined,
      stoppedAt: undefined,
    });
    expect(unresolved).toEqual(['indeterminate']);
    await s.close();
  });

  it('control: a guard isPause that is not a function is refused before the run; no span, no claim', async () => {
    const fixture = documentsFixture();
    const { moduleRef } = await fixture.boot();
    const refused = await moduleRef
      .get(ActionContextStore)
      .run(alice, () =>
        moduleRef
          .get(VerdictPipeline)
          .guard({ capability: 'documents.read', arguments: { id: 1 } }, async () => 'read', {
            isPause: 'yes' as never,
          }),
      )
      .catch((error: unknown) => error);
    await moduleRef.close();
    expect(refused).toBeInstanceOf(VerdictConfigurationError);
    expect(exporter.getFinishedSpans()).toEqual([]);
  });

  /** `VerdictService.execute` of an at-most-once capability whose executor raises LangGraph's interrupt. */
  async function serviceCall(isPause?: (error: unknown) => boolean) {
    const fixture = documentsFixture();
    const pausing = fixture.documentCapability(
      {
        name: 'documents.pausing',
        description: 'Pauses',
        atMostOnce: atMostOnce<{ id: number }, unknown>({ name: 'pausing-once', key: ({ arguments: a }) => a }),
      },
      () => {
        throw new GraphInterrupt([{ value: 'ask a human', id: 'interrupt-1' }]);
      },
    );
    const claims = new InMemoryExecutionClaimStore();
    const { moduleRef } = await fixture.boot({ capabilities: [pausing], executionClaims: claims });
    const thrown = await moduleRef
      .get(ActionContextStore)
      .run(alice, () =>
        moduleRef
          .get(VerdictService)
          .execute({ capability: 'documents.pausing', arguments: { id: 1 } }, isPause === undefined ? {} : { isPause }),
      )
      .catch((error: unknown) => error);
    const unresolved = (await claims.unresolved()).map((claim) => claim.status);
    await moduleRef.close();
    return { thrown, unresolved, span: outcome(spanOf('documents.pausing')) };
  }

  it("utility: VerdictService.execute given the runtime's isPause: the span is paused and the claim released", async () => {
    const { thrown, unresolved, span } = await serviceCall((error) => error instanceof GraphInterrupt);
    expect(thrown).toBeInstanceOf(GraphInterrupt);
    expect(span).toMatchObject({ status: { code: SpanStatusCode.UNSET }, errorType: undefined, paused: true });
    expect(unresolved).toEqual([]);
  });

  it('control: VerdictService.execute without isPause knows no pause: a fault, its claim indeterminate', async () => {
    const { thrown, unresolved, span } = await serviceCall();
    expect(thrown).toBeInstanceOf(GraphInterrupt);
    expect(span).toMatchObject({ status: { code: SpanStatusCode.ERROR }, errorType: 'GraphInterrupt' });
    expect(unresolved).toEqual(['indeterminate']);
  });
});
