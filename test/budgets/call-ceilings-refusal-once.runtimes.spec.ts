import { afterEach, describe, expect, it } from '@jest/globals';
import type { TestingModule } from '@nestjs/testing';
import { generateText, stepCountIs } from 'ai';
import { Agent, Runner, setTracingDisabled } from '@openai/agents';
import {
  type ActionContext,
  ActionContextStore,
  CallCeilingReachedError,
  InMemoryApprovalReceiptStore,
  InMemoryBudgetStore,
  InMemoryEvidenceRecorder,
} from '@verdict/nestjs';
import { VerdictAiSdkModule, VerdictAiSdkTools } from '@verdict/nestjs/ai-sdk';
import { VerdictAgentsModule, VerdictAgentsTools } from '@verdict/nestjs/openai-agents';
import { bob, documentsFixture } from '../pipeline/documents.fixture.js';
import { archiveCapability } from '../approvals/archive.fixture.js';
import { scriptedLanguageModel } from '../ai-sdk/scripted-language-model.js';
import { ScriptedAgentsModel } from '../openai-agents/scripted-agents-model.js';

// Traces would be exported to OpenAI's platform: nothing leaves the test.
setTracingDisabled(true);

const booted: TestingModule[] = [];
afterEach(async () => {
  await Promise.all(booted.splice(0).map((moduleRef) => moduleRef.close()));
});

type Turn = { toolCalls: Array<{ name: string; input: object; id: string }> } | { text: string };
/** Bob may not archive Alice's document 1: `deny` before any confirmation is asked. */
const archive = (id: string) => ({ name: 'archive_document', input: { id: 1 }, id });
/** Bob's rename of his own document 2: permitted. */
const rename = { name: 'rename_document', input: { id: 2, title: 'mine' }, id: 'call_rename' };

/**
 * Bob with a stable key (the module has no `actorKey`: the key is the actor itself, plain JSON), or without one (a
 * `Date` in the actor is not plain JSON): the runtimes keep what a bound tool asked about a call under its principal.
 */
const actors = [
  ['an actor with a stable key', bob],
  ['an actor without a stable key', { ...bob, actor: { id: 'bob', since: new Date(0) } }],
] as const;

/**
 * One agent run of `runtime` for `actor` in its own conversation with `deniedProposals: 2`, over the documents
 * fixture's `documents.rename` and the confirming `documents.archive`: the runtime asks `needsApproval` for each
 * archive call, then runs it (a refusal asks no one).
 */
async function runAgent(runtime: 'ai-sdk' | 'openai-agents', actor: ActionContext, turns: Turn[]) {
  const fixture = documentsFixture();
  const evidence = new InMemoryEvidenceRecorder();
  // One instant for the whole test: the ceilings' window (a UTC day) cannot roll over between two calls.
  const now = new Date();
  const { moduleRef } = await fixture.boot({
    capabilities: [archiveCapability(fixture, [])],
    approvals: new InMemoryApprovalReceiptStore(),
    budgets: new InMemoryBudgetStore(),
    callCeilings: { deniedProposals: 2 },
    evidence,
    clock: () => now,
    imports: [runtime === 'ai-sdk' ? VerdictAiSdkModule : VerdictAgentsModule],
  });
  booted.push(moduleRef);
  const context = { ...actor, metadata: { conversationId: `c-${runtime}` } };
  const contexts = moduleRef.get(ActionContextStore);
  const stages = () => evidence.decisions().map((record) => `${record.stage}:${record.disposition}`);
  if (runtime === 'ai-sdk') {
    const factory = moduleRef.get(VerdictAiSdkTools, { strict: false });
    const tools = {
      archive_document: factory.bound('documents.archive', { name: 'archive_document' }),
      rename_document: factory.bound('documents.rename', { name: 'rename_document' }),
    };
    const model = scriptedLanguageModel(turns);
    const messages = [{ role: 'user' as const, content: 'archive document 1, then rename mine' }];
    const run = contexts.run(context, () => generateText({ model, tools, messages, stopWhen: stepCountIs(6) }));
    return { run: run.then(({ text }) => text), fixture, stages, modelCalls: () => model.doGenerateCalls.length };
  }
  const factory = moduleRef.get(VerdictAgentsTools, { strict: false });
  const model = new ScriptedAgentsModel(turns);
  const agent = new Agent({
    name: 'Support',
    instructions: 'Help with documents.',
    model,
    tools: [
      factory.bound('documents.archive', { name: 'archive_document' }),
      factory.bound('documents.rename', { name: 'rename_document' }),
    ],
  });
  const run = contexts.run(context, () => new Runner().run(agent, 'archive document 1, then rename mine'));
  return { run: run.then(({ finalOutput }) => finalOutput), fixture, stages, modelCalls: () => model.requests.length };
}

describe.each([
  ['an AI SDK generateText loop', 'ai-sdk'],
  ['an OpenAI Agents run', 'openai-agents'],
] as const)('call ceilings count each refusal once, in %s', (_runtime, runtime) => {
  describe.each(actors)('for %s', (_actor, actor) => {
    it('a refused call of a confirming capability (asked, then run) is one refused proposal: the next call runs', async () => {
      const { run, fixture, stages } = await runAgent(runtime, actor, [
        { toolCalls: [archive('call_archive')] },
        { toolCalls: [rename] },
        { text: 'done' },
      ]);
      await expect(run).resolves.toBe('done');
      expect(fixture.executions).toHaveLength(1);
      // The asking run's refusal answered the call: it is recorded (and counted) once.
      expect(stages().filter((stage) => stage.endsWith(':deny'))).toEqual(['proposal:deny']);
    });

    it('the ceiling still stops the conversation at its count: the proposal after the second refusal ends the run', async () => {
      const { run, fixture, stages, modelCalls } = await runAgent(runtime, actor, [
        { toolCalls: [archive('call_archive_1')] },
        { toolCalls: [archive('call_archive_2')] },
        { toolCalls: [rename] },
        { text: 'done' },
      ]);
      await expect(run).rejects.toBeInstanceOf(CallCeilingReachedError);
      expect(modelCalls()).toBe(3);
      expect(fixture.executions).toHaveLength(0);
      expect(stages().filter((stage) => stage.endsWith(':deny'))).toEqual([
        'proposal:deny',
        'proposal:deny',
        'call_ceiling:deny',
      ]);
    });
  });
});
