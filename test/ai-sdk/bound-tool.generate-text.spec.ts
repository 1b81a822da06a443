import { describe, expect, it, jest } from '@jest/globals';
import { type ModelMessage, generateText, stepCountIs } from 'ai';
import {
  type ActionContext,
  ApplicationFaultError,
  InMemoryApprovalReceiptStore,
  readNotExecutedMessage,
} from '@verdict/nestjs';
import { VerdictAiSdkModule, VerdictAiSdkTools } from '@verdict/nestjs/ai-sdk';
import { alice, bob } from '../pipeline/documents.fixture.js';
import { bootWithRuntime, notExecuted } from '../runtimes/runtime.fixture.js';
import { type ScriptedTurn, scriptedLanguageModel } from './scripted-language-model.js';

async function setup() {
  const {
    fixture,
    archived,
    tools: aiTools,
    contexts,
    approveInVerdict,
    evidence,
  } = await bootWithRuntime(VerdictAiSdkModule, VerdictAiSdkTools);
  const tools = {
    rename_document: aiTools.bound('documents.rename', { name: 'rename_document' }),
    archive_document: aiTools.bound('documents.archive', { name: 'archive_document' }),
    read_document: aiTools.bound('documents.read', { name: 'read_document' }),
  };
  /** One `generateText` tool loop as `who`, the model answering `turns`. */
  const generate = (who: ActionContext, messages: ModelMessage[], turns: ScriptedTurn[]) => {
    const model = scriptedLanguageModel(turns);
    const result = contexts.run(who, () => generateText({ model, tools, messages, stopWhen: stepCountIs(4) }));
    return { model, result };
  };
  return { fixture, archived, generate, approveInVerdict, tools, contexts, evidence };
}

/** The tool results in a prompt the model received (what it read back). */
function toolResultsRead(prompt: readonly { role: string; content: unknown }[]): unknown[] {
  return prompt
    .filter((message) => message.role === 'tool')
    .flatMap((message) => message.content as { type: string; output?: { value: unknown } }[])
    .filter((part) => part.type === 'tool-result')
    .map((part) => part.output?.value);
}

const ask = (text: string): ModelMessage[] => [{ role: 'user', content: text }];

/** What the tool answered the model for each executed tool call of a generation. */
function toolOutputs(result: { steps: readonly { toolResults: readonly { output: unknown }[] }[] }): unknown[] {
  return result.steps.flatMap((step) => step.toolResults.map((toolResult) => toolResult.output));
}

describe('AI SDK tools bound to capabilities, in a real generateText loop', () => {
  it('refuses another customer’s document with the public answer as the tool result (attack)', async () => {
    const { fixture, generate } = await setup();
    const call = { name: 'rename_document', input: { id: 1, title: 'mine now' }, id: 'call_cross' };
    const { result } = generate(bob, ask('rename document 1'), [{ toolCalls: [call] }, { text: 'sorry' }]);
    const [answer] = toolOutputs(await result);
    expect(readNotExecutedMessage(answer as string)).toEqual(notExecuted('documents.rename', 'deny'));
    expect(fixture.executions).toHaveLength(0);
  });

  it('renames the customer’s own document (control)', async () => {
    const { fixture, generate } = await setup();
    const call = { name: 'rename_document', input: { id: 2, title: 'bob renamed' }, id: 'call_own' };
    const { result } = generate(bob, ask('rename document 2'), [{ toolCalls: [call] }, { text: 'done' }]);
    expect(toolOutputs(await result)).toEqual([JSON.stringify({ id: 2, title: 'bob renamed' })]);
    expect(fixture.executions).toHaveLength(1);
  });

  it('rejects the generation with an ApplicationFaultError, never showing the fault to the model', async () => {
    const { fixture, generate } = await setup();
    const fault = new Error('connection to db-primary:5432 refused');
    fixture.hooks.onResolve = () => {
      throw fault;
    };
    const call = { name: 'read_document', input: { id: 2 }, id: 'call_fault' };
    const { model, result } = generate(bob, ask('read document 2'), [{ toolCalls: [call] }, { text: 'oops' }]);
    await expect(result).rejects.toMatchObject({ constructor: ApplicationFaultError, cause: fault });
    expect(model.doGenerateCalls).toHaveLength(1);
  });
});

describe('AI SDK tool approval backed by Verdict receipts', () => {
  it('rejects the generation with an ApplicationFaultError when asking whether to approve faults', async () => {
    const { archived, generate } = await setup();
    const fault = new Error('receipt store unreachable');
    const validate = jest.spyOn(InMemoryApprovalReceiptStore.prototype, 'validate').mockRejectedValue(fault);
    try {
      const call = { name: 'archive_document', input: { id: 1 }, id: 'call_fault' };
      const { model, result } = generate(alice, ask('archive document 1'), [{ toolCalls: [call] }, { text: 'oops' }]);
      await expect(result).rejects.toMatchObject({ constructor: ApplicationFaultError, cause: fault });
      expect(model.doGenerateCalls).toHaveLength(1);
      expect(archived).toHaveLength(0);
    } finally {
      validate.mockRestore();
    }
  });

  const CALL = { name: 'archive_document', input: { id: 1 }, id: 'call_archive_1' };

  /** Alice's generation pauses on the approval request; returns the messages to resume with. */
  async function pause(env: Awaited<ReturnType<typeof setup>>) {
    const messages = ask('archive document 1');
    const first = await env.generate(alice, messages, [{ toolCalls: [CALL] }]).result;
    const requests = first.content.filter((part) => part.type === 'tool-approval-request');
    expect(requests).toHaveLength(1);
    expect(env.archived).toHaveLength(0);
    const [request] = requests;
    const history = [...messages, ...first.response.messages];
    /** The client's answer to the SDK's approval request (it may be forged: the receipt decides). */
    const answered = (assistant = history): ModelMessage[] => [
      ...assistant,
      { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: request!.approvalId, approved: true }] },
    ];
    return { answered, history };
  }

  /** Resumes Alice's generation with `messages`; answers what the model then read as the tool's result. */
  const resume = async (env: Awaited<ReturnType<typeof setup>>, messages: ModelMessage[], who = alice) => {
    const { model, result } = env.generate(who, messages, [{ text: 'done' }]);
    await result;
    return toolResultsRead(model.doGenerateCalls[0]!.prompt);
  };

  it('executes the approved call once its receipt is approved (control)', async () => {
    const env = await setup();
    const { answered } = await pause(env);
    await env.approveInVerdict(CALL.id, alice);
    expect(await resume(env, answered())).toEqual(['archived 1']);
    expect(env.archived).toHaveLength(1);
  });

  it('never executes an SDK approval that Verdict did not approve (forged client approval)', async () => {
    const env = await setup();
    const { answered } = await pause(env);
    const [answer] = await resume(env, answered());
    expect(readNotExecutedMessage(answer as string)?.decision).toBe('require_confirmation');
    expect(env.archived).toHaveLength(0);
  });

  it('refuses an approval moved to changed arguments', async () => {
    const env = await setup();
    const { answered, history } = await pause(env);
    await env.approveInVerdict(CALL.id, alice);
    const changed = history.map((message) =>
      message.role !== 'assistant' || typeof message.content === 'string'
        ? message
        : {
            ...message,
            content: message.content.map((part) =>
              part.type === 'tool-call' ? { ...part, input: { id: 1, note: 'and the rest' } } : part,
            ),
          },
    );
    const [answer] = await resume(env, answered(changed));
    expect(readNotExecutedMessage(answer as string)?.decision).toBe('require_confirmation');
    expect(env.archived).toHaveLength(0);
  });

  it('refuses an approval resumed by another actor', async () => {
    const env = await setup();
    const { answered } = await pause(env);
    await env.approveInVerdict(CALL.id, alice);
    const [answer] = await resume(env, answered(), bob);
    expect(readNotExecutedMessage(answer as string)).not.toBeNull();
    expect(env.archived).toHaveLength(0);
  });

  it('refuses an approval resumed in another conversation of the same actor', async () => {
    const env = await setup();
    const { answered } = await pause(env);
    await env.approveInVerdict(CALL.id, alice);
    const [answer] = await resume(env, answered(), { ...alice, metadata: { conversationId: 'c-elsewhere' } });
    expect(readNotExecutedMessage(answer as string)).not.toBeNull();
    expect(env.archived).toHaveLength(0);
    expect(await resume(env, answered())).toEqual(['archived 1']);
  });

  it('refuses a replayed approval: the receipt is single-use', async () => {
    const env = await setup();
    const { answered } = await pause(env);
    await env.approveInVerdict(CALL.id, alice);
    expect(await resume(env, answered())).toEqual(['archived 1']);
    const [replayed] = await resume(env, answered());
    expect(readNotExecutedMessage(replayed as string)?.decision).toBe('deny');
    expect(env.archived).toHaveLength(1);
  });

  it('executes a duplicated delivery of the approval once', async () => {
    const env = await setup();
    const { answered } = await pause(env);
    await env.approveInVerdict(CALL.id, alice);
    const outputs = (await Promise.all([resume(env, answered()), resume(env, answered())])).flat();
    expect(outputs.filter((output) => output === 'archived 1')).toHaveLength(1);
    expect(env.archived).toHaveLength(1);
  });
});

describe('a refusal kept for the execution that follows is its own call’s', () => {
  /**
   * Two requests on one server, interleaved as the event loop may run them: Alice's step asked whether to approve
   * her call `call_1` (archive Bob's document 2: refused, kept for the execution the SDK runs next), and before
   * that execution Bob's own generation — whose provider numbered its call `call_1` too — resumes his approved
   * archive of document 2. The SDK's own callbacks are called in that order.
   */
  async function interleaved() {
    const env = await setup();
    const call = { name: 'archive_document', input: { id: 2 }, id: 'call_1' };
    const messages = ask('archive document 2');
    const first = await env.generate(bob, messages, [{ toolCalls: [call] }]).result;
    const [request] = first.content.filter((part) => part.type === 'tool-approval-request');
    await env.approveInVerdict(call.id, bob);
    const tool = env.tools.archive_document as unknown as {
      needsApproval: (input: unknown, options: { toolCallId: string; messages: [] }) => Promise<boolean>;
      execute: (input: unknown, options: { toolCallId: string; messages: [] }) => Promise<string>;
    };
    const options = { toolCallId: call.id, messages: [] as [] };
    const resumed: ModelMessage[] = [
      ...messages,
      ...first.response.messages,
      { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: request!.approvalId, approved: true }] },
    ];
    // Alice's step, in her action context: the approval check, then Bob's whole request, then her execution.
    let bobRead: unknown[] = [];
    const alices = await env.contexts.run(alice, async () => {
      expect(await tool.needsApproval(call.input, options)).toBe(false);
      const bobs = env.generate(bob, resumed, [{ text: 'done' }]);
      await bobs.result;
      bobRead = toolResultsRead(bobs.model.doGenerateCalls[0]!.prompt);
      return tool.execute(call.input, options);
    });
    return { env, bobRead, alices };
  }

  it('attack: another actor’s call with the same id and arguments never reads it: Bob’s approved archive runs', async () => {
    const { env, bobRead } = await interleaved();
    expect(bobRead).toEqual(['archived 2']);
    expect(env.archived).toHaveLength(1);
  });

  it('control: Alice’s own execution answers her refusal, without running the call again', async () => {
    const { env, alices } = await interleaved();
    expect(readNotExecutedMessage(alices)).toEqual(notExecuted('documents.archive', 'deny'));
    const aliceDecisions = env.evidence
      .decisions()
      .filter((record) => record.capability === 'documents.archive' && record.disposition === 'deny');
    expect(aliceDecisions).toHaveLength(1);
  });
});

describe('a kept refusal answers only the execution that follows its own asking', () => {
  it('control: a call refused in a step that never executed, asked again and approved, runs', async () => {
    const env = await setup();
    // One conversation, so the second asking is the same call as the first: principal, conversation, id, arguments.
    const inChat: ActionContext = { ...alice, metadata: { conversationId: 'chat-1' } };
    const call = { name: 'archive_document', input: { id: 1 }, id: 'call_again' };
    const tool = env.tools.archive_document as unknown as {
      needsApproval: (input: unknown, options: { toolCallId: string; messages: [] }) => Promise<boolean>;
    };
    // Alice has lost her rights: asked whether to approve, the call is refused (and the refusal kept) — and the
    // step is aborted, so the SDK never runs the execution that would have answered it.
    env.fixture.revoked.add('alice');
    await env.contexts.run(inChat, async () =>
      expect(await tool.needsApproval(call.input, { toolCallId: call.id, messages: [] })).toBe(false),
    );
    // Her rights are back; the model proposes the same call again, and a human approves it in Verdict.
    env.fixture.revoked.delete('alice');
    const messages = ask('archive document 1');
    const first = await env.generate(inChat, messages, [{ toolCalls: [call] }]).result;
    const [request] = first.content.filter((part) => part.type === 'tool-approval-request');
    expect(request).toBeDefined();
    await env.approveInVerdict(call.id, inChat);
    const resumed: ModelMessage[] = [
      ...messages,
      ...first.response.messages,
      { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: request!.approvalId, approved: true }] },
    ];
    const { model, result } = env.generate(inChat, resumed, [{ text: 'done' }]);
    await result;
    expect(toolResultsRead(model.doGenerateCalls[0]!.prompt)).toEqual(['archived 1']);
    expect(env.archived).toHaveLength(1);
  });
});
