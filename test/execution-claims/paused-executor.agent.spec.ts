import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { HumanMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { Command, MemorySaver } from '@langchain/langgraph';
import { Injectable, Module } from '@nestjs/common';
import { EventEmitter2, EventEmitterModule } from '@nestjs/event-emitter';
import { createAgent } from 'langchain';
import { z } from 'zod';
import {
  ActionContextStore,
  ApplicationFaultError,
  ApprovalService,
  type AuthorizedAction,
  DuplicateExecutionRefused,
  type ExecutionClaimStore,
  InMemoryApprovalReceiptStore,
  InMemoryEvidenceRecorder,
  InMemoryExecutionClaimStore,
  type InvocationOptions,
  VerdictConfigurationError,
  VerdictService,
  atMostOnce,
} from '@verdict/nestjs';
import {
  VerdictLangChainModule,
  VerdictTools,
  applicationFaultMiddleware,
  approveToolCall,
} from '@verdict/nestjs/langchain';
import { TypeOrmExecutionClaimStore, verdictEntities, verdictMigrations } from '@verdict/nestjs/typeorm';
import { ScriptedChatModel } from '@verdict/nestjs/testing/langchain';
import { databaseEngines, dropDataSource, openDataSource } from '@verdict/testing-kit';
import { alice, documentsFixture } from '../pipeline/documents.fixture.js';
import { archiveCapability } from '../approvals/archive.fixture.js';

const INNER = { name: 'archive_document', args: { id: 1 }, id: 'inner_archive_1' };
const OUTER = { name: 'delegate', args: { id: 1 }, id: 'outer_delegate_1' };
const requester = { ...alice, metadata: { conversationId: 'conv-paused-executor' } };

/** Claims on one storage: memory, or TypeORM on an engine of the database matrix. */
const storages: Array<[string, () => Promise<{ claims: ExecutionClaimStore; close(): Promise<void> }>]> = [
  ['memory', async () => ({ claims: new InMemoryExecutionClaimStore(), close: async () => {} })],
  ...databaseEngines().map(
    (engine): [string, () => Promise<{ claims: ExecutionClaimStore; close(): Promise<void> }>] => [
      engine.name,
      async () => {
        const dataSource = await openDataSource(engine, { entities: verdictEntities, migrations: verdictMigrations });
        return { claims: new TypeOrmExecutionClaimStore(dataSource), close: () => dropDataSource(dataSource) };
      },
    ],
  ),
];

/**
 * An outer agent whose bound `documents.delegate` (at most once per document, unless `claimed` is false) runs a
 * sub-agent in its executor; the sub-agent's bound `documents.archive` requires confirmation, so the sub-agent's
 * pause surfaces on the outer run. `fail` makes the executor throw an ordinary fault instead.
 */
async function setup(claims: ExecutionClaimStore, { claimed = true, fail = false } = {}) {
  const fixture = documentsFixture();
  const archived: AuthorizedAction[] = [];
  const delegated: AuthorizedAction[] = [];
  // The sub-agent, built once the module is up: its bound tool comes from it.
  const sub: { agent?: { invoke(input: unknown): Promise<{ messages: { content: unknown }[] }> } } = {};
  const delegate = fixture.documentCapability(
    {
      name: 'documents.delegate',
      description: 'Delegate work on a document to a sub-agent',
      ...(claimed
        ? { atMostOnce: atMostOnce<{ id: number }, unknown>({ name: 'delegate-once', key: ({ arguments: a }) => a }) }
        : {}),
    },
    async (action) => {
      delegated.push(action);
      if (fail) throw new Error('the document service is down');
      const state = await sub.agent!.invoke({ messages: [new HumanMessage('archive document 1')] });
      return String(state.messages.at(-1)!.content);
    },
  );
  const schema = z.object({ id: z.number().int() });
  const archiveDefinition = tool(async () => 'never', { name: INNER.name, description: 'Archive', schema });
  const delegateDefinition = tool(async () => 'never', { name: OUTER.name, description: 'Delegate', schema });
  @Injectable()
  class AgentTools {
    constructor(readonly tools: VerdictTools) {}
  }
  @Module({ imports: [VerdictLangChainModule, EventEmitterModule.forRoot()], providers: [AgentTools] })
  class AgentModule {}
  const evidence = new InMemoryEvidenceRecorder();
  const { moduleRef } = await fixture.boot({
    capabilities: [archiveCapability(fixture, archived), delegate],
    approvals: new InMemoryApprovalReceiptStore(),
    executionClaims: claims,
    imports: [AgentModule],
    evidence,
  });
  const duplicates: unknown[] = [];
  moduleRef.get(EventEmitter2).on(DuplicateExecutionRefused.event, (event: unknown) => duplicates.push(event));
  const tools = moduleRef.get(AgentTools).tools;
  sub.agent = createAgent({
    model: new ScriptedChatModel([{ toolCalls: [INNER] }, { text: 'inner done' }]),
    tools: [tools.bound(archiveDefinition, 'documents.archive')],
    middleware: [applicationFaultMiddleware()],
  });
  const outerModel = new ScriptedChatModel([{ toolCalls: [OUTER] }, { text: 'outer done' }]);
  const outer = createAgent({
    model: outerModel,
    tools: [tools.bound(delegateDefinition, 'documents.delegate')],
    checkpointer: new MemorySaver(),
    middleware: [applicationFaultMiddleware()],
  });
  const contexts = moduleRef.get(ActionContextStore);
  const approvals = moduleRef.get(ApprovalService);
  const verdict = moduleRef.get(VerdictService);
  const config = { configurable: { thread_id: `thread-${Math.random()}` } };
  const as = <T>(fn: () => Promise<T>) => contexts.run(requester, fn);
  const pending = (state: unknown) =>
    ((state as { __interrupt__?: { value: { toolCallId: string } }[] }).__interrupt__ ?? []).map(
      (i) => i.value.toolCallId,
    );
  return {
    archived,
    delegated,
    duplicates,
    outerModel,
    /** The delegate's records at `execution_claim`: disposition, claim status and attempt. */
    claimRecords: () =>
      evidence
        .decisions()
        .filter((d) => d.capability === 'documents.delegate' && d.stage === 'execution_claim')
        .map((d) => [d.disposition, d.claimStatus, d.claimAttempt]),
    start: async () => pending(await as(() => outer.invoke({ messages: [new HumanMessage('delegate')] }, config))),
    resume: async (value: unknown) => pending(await as(() => outer.invoke(new Command({ resume: value }), config))),
    approveInner: async () => {
      const challenge = await approvals.challengeForToolCall(INNER.id, requester);
      expect(challenge).not.toBeNull();
      await approvals.approve(challenge!.receiptId, INNER.id, 'customer:alice');
    },
    /** The same operation proposed again, by another tool call, straight to the pipeline. */
    proposeAgain: (toolCallId: string, options: InvocationOptions = {}) =>
      as(() => verdict.execute({ capability: 'documents.delegate', arguments: { id: 1 }, toolCallId }, options)),
    /** The operation's claim, by the execution identity its executor was handed. */
    claim: () => claims.find(delegated[0]!.executionIdentity),
  };
}

describe.each(storages)("a sub-agent's confirmation inside an at-most-once executor [%s] (ADR 0177)", (_name, open) => {
  let storage: Awaited<ReturnType<(typeof storages)[number][1]>>;
  // A fresh store for each test: the claim of one operation is what each test is about.
  beforeEach(async () => (storage = await open()));
  afterEach(async () => storage?.close());

  it('attack: the approved sub-agent call runs once on resume, and the outer call completes, not refused', async () => {
    const s = await setup(storage.claims);
    expect(await s.start()).toEqual([INNER.id]);
    // Paused, not failed: the claim is released for the resumed call, not left for an operator.
    expect(await s.claim()).toMatchObject({ status: 'released', attempt: 1, resolvedBy: 'verdict:pause' });
    expect((await storage.claims.unresolved()).map((c) => c.id)).not.toContain(s.delegated[0]!.executionIdentity);

    await s.approveInner();
    expect(await s.resume(approveToolCall(INNER.id))).toEqual([]);
    expect(s.archived).toHaveLength(1);
    expect(s.outerModel.toolMessages().map((m) => m.content)).toEqual(['inner done']);
    expect(s.duplicates).toHaveLength(0);
    // The executor ran again on resume (LangGraph's rule), under the same claim id, its second attempt.
    expect(s.delegated.map((a) => a.executionIdentity)).toEqual([
      s.delegated[0]!.executionIdentity,
      s.delegated[0]!.executionIdentity,
    ]);
    expect(s.claimRecords()).toEqual([
      ['permit', 'claimed', 1],
      ['permit', 'claimed', 2],
    ]);
    expect(await s.claim()).toMatchObject({ status: 'completed', attempt: 2 });
  });

  it('control: once completed, the same operation proposed again is refused as a duplicate', async () => {
    const s = await setup(storage.claims);
    await s.start();
    await s.approveInner();
    await s.resume(approveToolCall(INNER.id));
    expect(await s.proposeAgain('call_again_1')).toMatchObject({
      executed: false,
      decision: {
        disposition: 'deny',
        stage: 'execution_claim',
        reason: 'duplicate operation: its execution claim is completed',
      },
    });
    expect(s.archived).toHaveLength(1);
    expect(s.delegated).toHaveLength(2);
  });

  it('control: an executor that throws an ordinary fault leaves the claim indeterminate; a retry is refused', async () => {
    const s = await setup(storage.claims, { fail: true });
    const error = await s.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ApplicationFaultError);
    expect(await s.claim()).toMatchObject({ status: 'indeterminate', attempt: 1 });
    expect(await s.proposeAgain('call_retry_1')).toMatchObject({
      executed: false,
      decision: { disposition: 'deny', stage: 'execution_claim' },
    });
    expect(s.delegated).toHaveLength(1);
    expect(s.duplicates).toHaveLength(1);
  });
});

describe("a sub-agent's confirmation inside an executor without a claim", () => {
  it('utility: the executor runs again on resume (LangGraph re-runs the node), the approved call once', async () => {
    const s = await setup(new InMemoryExecutionClaimStore(), { claimed: false });
    expect(await s.start()).toEqual([INNER.id]);
    await s.approveInner();
    expect(await s.resume(approveToolCall(INNER.id))).toEqual([]);
    expect(s.delegated).toHaveLength(2);
    expect(s.archived).toHaveLength(1);
    expect(s.outerModel.toolMessages().map((m) => m.content)).toEqual(['inner done']);
  });
});

describe('InvocationOptions.isPause', () => {
  it('a value that is not a function throws VerdictConfigurationError before the run; nothing is claimed', async () => {
    const claims = new InMemoryExecutionClaimStore();
    const s = await setup(claims);
    await expect(s.proposeAgain('call_direct_1', { isPause: 'yes' as never })).rejects.toThrow(
      VerdictConfigurationError,
    );
    expect(await claims.unresolved()).toEqual([]);
    expect(s.delegated).toHaveLength(0);
    expect(s.claimRecords()).toEqual([]);
  });
});
