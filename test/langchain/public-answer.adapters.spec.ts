import { describe, expect, it } from '@jest/globals';
import { HumanMessage } from '@langchain/core/messages';
import { type StructuredToolInterface, tool } from '@langchain/core/tools';
import { Injectable, Module } from '@nestjs/common';
import { createAgent } from 'langchain';
import { z } from 'zod';
import {
  ActionContextStore,
  DEFAULT_PUBLIC_MESSAGE,
  Disposition,
  InMemoryEvidenceRecorder,
  VerdictService,
  readNotExecutedMessage,
} from '@verdict/nestjs';
import { VerdictLangChainModule, VerdictTools } from '@verdict/nestjs/langchain';
import { observe } from '../../libs/storefront/src/evaluation/attack-pack-steps.js';
import { ScriptedChatModel } from '../../libs/testing/src/scripted-chat-model.js';
import { Document, alice, documentsFixture } from '../pipeline/documents.fixture.js';

/** Every way the documents fixture refuses alice at the proposal stage: each recorded reason is internal. */
const PROPOSAL_REFUSALS = [
  { name: 'read_document', args: { id: 2 } }, // bob's document: no CASL rule
  { name: 'read_document', args: { id: 3 } }, // another tenant's: not resolvable
  { name: 'read_document', args: { id: 99 } }, // no such document
  { name: 'read_document', args: { id: 'DROP TABLE documents' } }, // malformed arguments
  { name: 'rename_document', args: { id: 4, title: 'new' } }, // an inverted rule with a reason
  { name: 'rename_document', args: { id: 5, title: 'new' } }, // a field rule with a reason
  { name: 'rename_document', args: { id: 1, title: 'new', owner: 'mallory' } }, // a field no rule permits
];

/** Refusals after the proposal stage (a guarded tool has none: it runs no refresh). */
const REFRESH_REFUSALS = [
  { name: 'read_document', args: { id: 6 } }, // substituted by the refresh
  { name: 'read_document', args: { id: 7 } }, // moved to bob between proposal and execution
];

const ALL_REFUSALS = [...PROPOSAL_REFUSALS, ...REFRESH_REFUSALS];

/** Alice's own document: the legitimate path. */
const OWN_DOCUMENT = { name: 'read_document', args: { id: 1 } };

const definition = (name: string, schema: z.ZodObject) =>
  tool(async () => 'definition handler', { name, description: name, schema });

async function setup() {
  const fixture = documentsFixture();
  fixture.documents.set(4, new Document(4, 'acme', 'alice', 'locked memo'));
  fixture.documents.set(5, new Document(5, 'acme', 'alice', 'frozen memo'));
  fixture.documents.set(6, new Document(6, 'acme', 'alice', 'draft'));
  fixture.documents.set(7, new Document(7, 'acme', 'alice', 'handover'));
  fixture.hooks.onRefresh = (doc) => {
    if (doc.id === 6) return new Document(2, 'acme', 'bob', 'bob plan');
    if (doc.id === 7) return new Document(7, 'acme', 'bob', 'handover');
  };
  const read = definition('read_document', z.object({ id: z.number().int() }));
  const rename = definition(
    'rename_document',
    z.object({ id: z.number().int(), title: z.string(), owner: z.string().optional() }),
  );

  @Injectable()
  class Adapters {
    constructor(readonly verdictTools: VerdictTools) {}
    bound() {
      return [this.verdictTools.bound(read, 'documents.read'), this.verdictTools.bound(rename, 'documents.rename')];
    }
    guarded() {
      return [this.verdictTools.guarded(read, 'documents.read'), this.verdictTools.guarded(rename, 'documents.rename')];
    }
  }
  @Module({ imports: [VerdictLangChainModule], providers: [Adapters] })
  class AdaptersModule {}

  const { moduleRef, evidence } = await fixture.boot({ imports: [AdaptersModule] });
  const contexts = moduleRef.get(ActionContextStore);
  const adapters = moduleRef.get(Adapters);
  /** What the model read back from each refused call in a real agent loop. */
  const inAgent = async (tools: StructuredToolInterface[], calls = ALL_REFUSALS) => {
    const model = new ScriptedChatModel([
      ...calls.map((call, i) => ({ toolCalls: [{ ...call, id: `call_${i}` }] })),
      { text: 'done' },
    ]);
    await contexts.run(alice, () =>
      createAgent({ model, tools }).invoke({ messages: [new HumanMessage('tidy my documents')] }),
    );
    model.assertScriptConsumed();
    return model.toolMessages().map((message) => String(message.content));
  };
  const verdict = moduleRef.get(VerdictService);
  const capabilities: Record<string, string> = { read_document: 'documents.read', rename_document: 'documents.rename' };
  /**
   * An adapter that is not a LangChain tool: the attack pack's `observe()`, whose observation is what the
   * evaluation records as the model's view of each `VerdictService.execute` result. Its output, and the
   * whole observation, must hold no internal reason.
   */
  const observations: string[] = [];
  const throughObserve = (calls = ALL_REFUSALS) =>
    contexts.run(alice, async () => {
      const outputs: string[] = [];
      for (const call of calls) {
        const proposal = { capability: capabilities[call.name], arguments: call.args };
        const observation = observe(await verdict.execute(proposal), proposal);
        observations.push(JSON.stringify(observation));
        outputs.push(typeof observation.output === 'string' ? observation.output : JSON.stringify(observation.output));
      }
      return outputs;
    });
  const refusalReasons = () =>
    (evidence as InMemoryEvidenceRecorder)
      .decisions()
      .filter((record) => record.disposition !== Disposition.Permit)
      .map((record) => record.reason);
  return { inAgent, throughObserve, observations, adapters, refusalReasons, executions: fixture.executions };
}

describe('the answer a model reads for a refused proposal', () => {
  it.each([
    [
      'a bound tool in an agent loop',
      (s: Awaited<ReturnType<typeof setup>>) => s.inAgent(s.adapters.bound()),
      'Not done.',
    ],
    [
      'a guarded tool in an agent loop',
      (s: Awaited<ReturnType<typeof setup>>) => s.inAgent(s.adapters.guarded(), PROPOSAL_REFUSALS),
      'Not done.',
    ],
    // The attack pack answers with the default message, not the fixture's.
    [
      "VerdictService through the attack pack's observe()",
      (s: Awaited<ReturnType<typeof setup>>) => s.throughObserve(),
      DEFAULT_PUBLIC_MESSAGE,
    ],
  ])('never holds an internal reason: %s', async (_, answersOf, message) => {
    const s = await setup();
    const answers = await answersOf(s);
    const reasons = s.refusalReasons();
    expect(reasons.length).toBeGreaterThanOrEqual(answers.length);
    expect(new Set(reasons).size).toBeGreaterThanOrEqual(6);
    for (const answer of answers)
      expect(readNotExecutedMessage(answer)).toMatchObject({ status: 'not_executed', message });
    for (const text of [...answers, ...s.observations])
      for (const reason of reasons) expect(text).not.toContain(reason);
    expect(s.executions).toHaveLength(0);
  });

  it('is the executor output when the proposal executed (control)', async () => {
    const s = await setup();
    const [bound, guarded] = await Promise.all([
      s.inAgent(s.adapters.bound(), [OWN_DOCUMENT]),
      s.inAgent(s.adapters.guarded(), [OWN_DOCUMENT]),
    ]);
    const served = await s.throughObserve([OWN_DOCUMENT]);
    expect([bound, guarded, served]).toEqual([
      ['{"id":1,"title":"alice plan"}'],
      ['definition handler'],
      ['{"id":1,"title":"alice plan"}'],
    ]);
  });
});
