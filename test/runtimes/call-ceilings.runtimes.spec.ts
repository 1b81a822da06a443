import { afterEach, describe, expect, it } from '@jest/globals';
import type { Type } from '@nestjs/common';
import type { TestingModule } from '@nestjs/testing';
import { generateText, stepCountIs } from 'ai';
import { Agent, Runner, setTracingDisabled } from '@openai/agents';
import {
  type ActionContext,
  ActionContextStore,
  ApplicationFaultError,
  CallCeilingReachedError,
  type CallCeilings,
  InMemoryApprovalReceiptStore,
  InMemoryBudgetStore,
  InMemoryEvidenceRecorder,
} from '@verdict/nestjs';
import { VerdictAiSdkModule, VerdictAiSdkTools } from '@verdict/nestjs/ai-sdk';
import { VerdictAgentsModule, VerdictAgentsTools } from '@verdict/nestjs/openai-agents';
import { alice, bob, documentsFixture } from '../pipeline/documents.fixture.js';
import { archiveCapability } from '../approvals/archive.fixture.js';
import { scriptedLanguageModel } from '../ai-sdk/scripted-language-model.js';
import { ScriptedAgentsModel } from '../openai-agents/scripted-agents-model.js';

// Traces would be exported to OpenAI's platform: nothing leaves the test.
setTracingDisabled(true);

const booted: TestingModule[] = [];
afterEach(async () => {
  await Promise.all(booted.splice(0).map((moduleRef) => moduleRef.close()));
});

const inConversation = (id: string): ActionContext => ({ ...alice, metadata: { conversationId: id } });
/** A scripted model turn of either runtime. */
type Turn = { toolCalls: Array<{ name: string; input: object; id: string }> } | { text: string };
const rename = (n: number) => ({ name: 'rename_document', input: { id: 1, title: `title ${n}` }, id: `call_${n}` });

/**
 * The documents fixture with a tool-call ceiling of 2 per conversation, and one runtime's module; `documents.delegate`
 * runs `delegate` (another agent, say) in its executor, in the caller's action context.
 */
async function boot<T>(
  runtimeModule: Type,
  tools: Type<T>,
  callCeilings: CallCeilings = { toolCalls: 2 },
  delegate: () => Promise<unknown> = async () => 'nothing to do',
) {
  const fixture = documentsFixture();
  const evidence = new InMemoryEvidenceRecorder();
  const delegation = fixture.documentCapability(
    { name: 'documents.delegate', description: 'Hand a document to the assistant agent' },
    async () => ({ done: await delegate() }),
  );
  // One instant for the whole test: the ceilings' window (a UTC day) cannot roll over between two calls.
  const now = new Date();
  const { moduleRef } = await fixture.boot({
    capabilities: [archiveCapability(fixture, [])].concat(delegation),
    approvals: new InMemoryApprovalReceiptStore(),
    budgets: new InMemoryBudgetStore(),
    callCeilings,
    evidence,
    clock: () => now,
    imports: [runtimeModule],
  });
  booted.push(moduleRef);
  const ceilings = () => evidence.decisions().filter((record) => record.stage === 'call_ceiling');
  return {
    fixture,
    ceilings,
    contexts: moduleRef.get(ActionContextStore),
    factory: moduleRef.get(tools, { strict: false }),
  };
}

describe('call ceilings end the agent run in the other runtimes too', () => {
  it('attack: an AI SDK generateText loop past the tool-call ceiling rejects with CallCeilingReachedError; the model is not answered again', async () => {
    const { fixture, ceilings, contexts, factory } = await boot(VerdictAiSdkModule, VerdictAiSdkTools);
    const tools = { rename_document: factory.bound('documents.rename', { name: 'rename_document' }) };
    const model = scriptedLanguageModel([
      { toolCalls: [rename(1)] },
      { toolCalls: [rename(2)] },
      { toolCalls: [rename(3)] },
      { text: 'done' },
    ]);
    const messages = [{ role: 'user' as const, content: 'rename document 1, again and again' }];
    const run = contexts.run(inConversation('c-ai'), () =>
      generateText({ model, tools, messages, stopWhen: stepCountIs(6) }),
    );
    await expect(run).rejects.toBeInstanceOf(CallCeilingReachedError);
    expect(model.doGenerateCalls).toHaveLength(3);
    expect(fixture.executions).toHaveLength(2);
    expect(ceilings()).toHaveLength(1);
  });

  it('control: an AI SDK loop under the ceiling runs to its answer', async () => {
    const { fixture, contexts, factory } = await boot(VerdictAiSdkModule, VerdictAiSdkTools);
    const tools = { rename_document: factory.bound('documents.rename', { name: 'rename_document' }) };
    const model = scriptedLanguageModel([{ toolCalls: [rename(1)] }, { toolCalls: [rename(2)] }, { text: 'done' }]);
    const messages = [{ role: 'user' as const, content: 'rename document 1 twice' }];
    const result = await contexts.run(inConversation('c-ai-ok'), () =>
      generateText({ model, tools, messages, stopWhen: stepCountIs(6) }),
    );
    expect(result.text).toBe('done');
    expect(fixture.executions).toHaveLength(2);
  });

  it('attack: an OpenAI Agents run past the tool-call ceiling rejects with CallCeilingReachedError', async () => {
    const { fixture, ceilings, contexts, factory } = await boot(VerdictAgentsModule, VerdictAgentsTools);
    const model = new ScriptedAgentsModel([
      { toolCalls: [rename(1)] },
      { toolCalls: [rename(2)] },
      { toolCalls: [rename(3)] },
      { text: 'done' },
    ]);
    const agent = new Agent({
      name: 'Support',
      instructions: 'Help with documents.',
      model,
      tools: [factory.bound('documents.rename', { name: 'rename_document' })],
    });
    const run = contexts.run(inConversation('c-agents'), () => new Runner().run(agent, 'rename document 1'));
    await expect(run).rejects.toBeInstanceOf(CallCeilingReachedError);
    expect(fixture.executions).toHaveLength(2);
    expect(ceilings()).toHaveLength(1);
  });

  it('control: an OpenAI Agents run under the ceiling runs to its answer', async () => {
    const { fixture, contexts, factory } = await boot(VerdictAgentsModule, VerdictAgentsTools);
    const model = new ScriptedAgentsModel([{ toolCalls: [rename(1)] }, { toolCalls: [rename(2)] }, { text: 'done' }]);
    const agent = new Agent({
      name: 'Support',
      instructions: 'Help with documents.',
      model,
      tools: [factory.bound('documents.rename', { name: 'rename_document' })],
    });
    const result = await contexts.run(inConversation('c-agents-ok'), () => new Runner().run(agent, 'rename'));
    expect(result.finalOutput).toBe('done');
    expect(fixture.executions).toHaveLength(2);
  });

  describe.each([
    ['an AI SDK generateText loop', 'ai-sdk'],
    ['an OpenAI Agents run', 'openai-agents'],
  ] as const)('a sub-agent inside a bound executor, in %s', (_runtime, runtime) => {
    /** The outer agent hands document 1 over; the agent `inner` scripts renames it, in the same conversation. */
    async function delegated(inner: Turn[]) {
      const agents: { run?: (turns: typeof inner) => Promise<unknown> } = {};
      const setup =
        runtime === 'ai-sdk'
          ? await boot(VerdictAiSdkModule, VerdictAiSdkTools, { toolCalls: 2 }, () => agents.run!(inner))
          : await boot(VerdictAgentsModule, VerdictAgentsTools, { toolCalls: 2 }, () => agents.run!(inner));
      const delegateCall = { name: 'delegate_document', input: { id: 1 }, id: 'call_delegate' };
      const outer: Turn[] = [{ toolCalls: [delegateCall] }, { text: 'handed over' }];
      if (runtime === 'ai-sdk') {
        const factory = setup.factory as VerdictAiSdkTools;
        const tools = {
          rename_document: factory.bound('documents.rename', { name: 'rename_document' }),
          delegate_document: factory.bound('documents.delegate', { name: 'delegate_document' }),
        };
        const messages = [{ role: 'user' as const, content: 'hand document 1 over' }];
        const run = (turns: typeof inner) =>
          generateText({ model: scriptedLanguageModel(turns), tools, messages, stopWhen: stepCountIs(6) });
        agents.run = run;
        return { ...setup, outer: setup.contexts.run(inConversation(`c-sub-${runtime}`), () => run(outer)) };
      }
      const factory = setup.factory as VerdictAgentsTools;
      const tools = [
        factory.bound('documents.rename', { name: 'rename_document' }),
        factory.bound('documents.delegate', { name: 'delegate_document' }),
      ];
      const run = (turns: typeof inner) =>
        new Runner().run(
          new Agent({
            name: 'Support',
            instructions: 'Help with documents.',
            model: new ScriptedAgentsModel(turns),
            tools,
          }),
          'hand document 1 over',
        );
      agents.run = run;
      return { ...setup, outer: setup.contexts.run(inConversation(`c-sub-${runtime}`), () => run(outer)) };
    }

    it('attack: its call past the conversation’s ceiling ends the outer run with CallCeilingReachedError, not as an application fault', async () => {
      // The outer call is the first of two; the sub-agent's first rename the second; its next one is past the ceiling.
      const { fixture, ceilings, outer } = await delegated([
        { toolCalls: [rename(1)] },
        { toolCalls: [rename(2)] },
        { text: 'renamed' },
      ]);
      await expect(outer).rejects.toBeInstanceOf(CallCeilingReachedError);
      await expect(outer).rejects.not.toBeInstanceOf(ApplicationFaultError);
      expect(fixture.executions).toHaveLength(1);
      expect(ceilings()).toHaveLength(1);
    });

    it('control: a sub-agent under the ceiling lets the outer run answer', async () => {
      const { fixture, outer } = await delegated([{ toolCalls: [rename(1)] }, { text: 'renamed' }]);
      await expect(outer).resolves.toBeDefined();
      expect(fixture.executions).toHaveLength(1);
    });
  });

  it('control: any other fault of an executor still ends an AI SDK run as an ApplicationFaultError', async () => {
    const fault = new Error('the archive service is down');
    const { contexts, factory } = await boot(VerdictAiSdkModule, VerdictAiSdkTools, { toolCalls: 2 }, async () => {
      throw fault;
    });
    const tools = { delegate_document: factory.bound('documents.delegate', { name: 'delegate_document' }) };
    const model = scriptedLanguageModel([
      { toolCalls: [{ name: 'delegate_document', input: { id: 1 }, id: 'call_delegate' }] },
      { text: 'handed over' },
    ]);
    const messages = [{ role: 'user' as const, content: 'hand document 1 over' }];
    const run = contexts.run(inConversation('c-fault'), () =>
      generateText({ model, tools, messages, stopWhen: stepCountIs(6) }),
    );
    await expect(run).rejects.toBeInstanceOf(ApplicationFaultError);
    await expect(run).rejects.toMatchObject({ cause: fault });
  });

  it('attack: a refused call of a confirming capability (asked needsApproval, then run) counts as one refused proposal, not two', async () => {
    const { fixture, contexts, factory } = await boot(VerdictAiSdkModule, VerdictAiSdkTools, { deniedProposals: 2 });
    const tools = {
      archive_document: factory.bound('documents.archive', { name: 'archive_document' }),
      rename_document: factory.bound('documents.rename', { name: 'rename_document' }),
    };
    // Bob may not archive Alice's document 1 (deny before confirmation); his rename of his own document 2 is fine.
    const model = scriptedLanguageModel([
      { toolCalls: [{ name: 'archive_document', input: { id: 1 }, id: 'call_archive' }] },
      { toolCalls: [{ name: 'rename_document', input: { id: 2, title: 'mine' }, id: 'call_rename' }] },
      { text: 'done' },
    ]);
    const messages = [{ role: 'user' as const, content: 'archive document 1, then rename mine' }];
    const result = await contexts.run({ ...bob, metadata: { conversationId: 'c-confirming' } }, () =>
      generateText({ model, tools, messages, stopWhen: stepCountIs(6) }),
    );
    expect(result.text).toBe('done');
    expect(fixture.executions).toHaveLength(1);
  });
});
