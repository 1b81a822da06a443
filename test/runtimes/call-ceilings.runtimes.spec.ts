import { afterEach, describe, expect, it } from '@jest/globals';
import type { Type } from '@nestjs/common';
import type { TestingModule } from '@nestjs/testing';
import { generateText, stepCountIs } from 'ai';
import { Agent, Runner, setTracingDisabled } from '@openai/agents';
import {
  type ActionContext,
  ActionContextStore,
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
const rename = (n: number) => ({ name: 'rename_document', input: { id: 1, title: `title ${n}` }, id: `call_${n}` });

/** The documents fixture with a tool-call ceiling of 2 per conversation, and one runtime's module. */
async function boot<T>(runtimeModule: Type, tools: Type<T>, callCeilings: CallCeilings = { toolCalls: 2 }) {
  const fixture = documentsFixture();
  const evidence = new InMemoryEvidenceRecorder();
  const { moduleRef } = await fixture.boot({
    capabilities: [archiveCapability(fixture, [])],
    approvals: new InMemoryApprovalReceiptStore(),
    budgets: new InMemoryBudgetStore(),
    callCeilings,
    evidence,
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
