import { describe, expect, it, jest } from '@jest/globals';
import { Agent, RunState, Runner, setTracingDisabled } from '@openai/agents';
import {
  type ActionContext,
  ApplicationFaultError,
  ExecutionTargetPolicy,
  InMemoryApprovalReceiptStore,
  VerdictConfigurationError,
  TargetNotResolvable,
  defineCapability,
  fromContext,
  readNotExecutedMessage,
} from '@verdict/nestjs';
import { z } from 'zod';
import { VerdictAgentsModule, VerdictAgentsTools } from '@verdict/nestjs/openai-agents';
import { alice, bob } from '../pipeline/documents.fixture.js';
import { bootWithRuntime, notExecuted } from '../runtimes/runtime.fixture.js';
import { type AgentsTurn, ScriptedAgentsModel } from './scripted-agents-model.js';

// Traces would be exported to OpenAI's platform: nothing leaves the test.
setTracingDisabled(true);

async function setup() {
  const {
    fixture,
    archived,
    tools: agentsTools,
    contexts,
    approveInVerdict,
  } = await bootWithRuntime(VerdictAgentsModule, VerdictAgentsTools);
  /** A fresh agent (its own tools and scripted model), as a new process would build it. */
  const agentFor = (turns: AgentsTurn[]) => {
    const model = new ScriptedAgentsModel(turns);
    const tools = ['documents.rename', 'documents.archive', 'documents.read'].map((name) => agentsTools.bound(name));
    return { model, agent: new Agent({ name: 'Support', instructions: 'Help with documents.', model, tools }) };
  };
  /** Runs `input` (a prompt or a resumed state) as `who` in a fresh runner. */
  const runAs = <T>(who: ActionContext, go: (runner: Runner) => Promise<T>) =>
    contexts.run(who, () => go(new Runner()));
  return { fixture, archived, agentFor, runAs, approveInVerdict };
}

/** What the tools answered the model in a run. */
function toolOutputs(result: { newItems: readonly { type: string }[] }): unknown[] {
  return result.newItems
    .filter((item) => item.type === 'tool_call_output_item')
    .map((item) => (item as unknown as { output: unknown }).output);
}

/** A capability named `name` that restores an archived document: a twin whose tool name may clash with another's. */
const restore = (name: string) =>
  defineCapability(
    {
      name,
      description: 'Restore an archived document',
      action: 'read',
      subject: 'Document',
      arguments: z.object({ id: z.number().int() }),
      resolveTarget: fromContext((): object => TargetNotResolvable.throw('no archive')),
      executionTarget: ExecutionTargetPolicy.acceptStaleSnapshot({
        name: 'none',
        identity: () => ({ type: 'none' }),
      }),
    },
    () => 'restored',
  );

describe('OpenAI Agents function tools bound to capabilities, in a real runner', () => {
  it('refuses another customer’s document with the public answer as the tool output (attack)', async () => {
    const { fixture, agentFor, runAs } = await setup();
    const call = { name: 'documents_rename', input: { id: 1, title: 'mine now' }, id: 'call_cross' };
    const { agent } = agentFor([{ toolCalls: [call] }, { text: 'sorry' }]);
    const result = await runAs(bob, (runner) => runner.run(agent, 'rename document 1'));
    const [answer] = toolOutputs(result);
    expect(readNotExecutedMessage(answer as string)).toEqual(notExecuted('documents.rename', 'deny'));
    expect(fixture.executions).toHaveLength(0);
  });

  it('renames the customer’s own document (control)', async () => {
    const { fixture, agentFor, runAs } = await setup();
    const call = { name: 'documents_rename', input: { id: 2, title: 'bob renamed' }, id: 'call_own' };
    const { agent } = agentFor([{ toolCalls: [call] }, { text: 'done' }]);
    const result = await runAs(bob, (runner) => runner.run(agent, 'rename document 2'));
    expect(toolOutputs(result)).toEqual([JSON.stringify({ id: 2, title: 'bob renamed' })]);
    expect(fixture.executions).toHaveLength(1);
  });

  it('fails the run with the ApplicationFaultError, never showing the fault to the model', async () => {
    const { fixture, agentFor, runAs } = await setup();
    const fault = new Error('connection to db-primary:5432 refused');
    fixture.hooks.onResolve = () => {
      throw fault;
    };
    const call = { name: 'documents_read', input: { id: 2 }, id: 'call_fault' };
    const { agent, model } = agentFor([{ toolCalls: [call] }, { text: 'oops' }]);
    const failure = await runAs(bob, (runner) => runner.run(agent, 'read document 2')).catch((error: unknown) => error);
    expect(causes(failure).find((error) => error instanceof ApplicationFaultError)?.cause).toBe(fault);
    expect(model.requests).toHaveLength(1);
  });
});

/** `error` and its chain of causes. */
function causes(error: unknown): { cause?: unknown }[] {
  const chain: { cause?: unknown }[] = [];
  for (let at = error; typeof at === 'object' && at !== null; at = (at as { cause?: unknown }).cause)
    chain.push(at as { cause?: unknown });
  return chain;
}

describe('OpenAI Agents run interruptions backed by Verdict receipts, across RunState serialization', () => {
  const CALL = { name: 'documents_archive', input: { id: 1 }, id: 'call_archive_1' };

  it('fails the run with the ApplicationFaultError when asking whether to approve faults', async () => {
    const { archived, agentFor, runAs } = await setup();
    const fault = new Error('receipt store unreachable');
    const validate = jest.spyOn(InMemoryApprovalReceiptStore.prototype, 'validate').mockRejectedValue(fault);
    try {
      const { agent, model } = agentFor([{ toolCalls: [CALL] }, { text: 'oops' }]);
      const failure = await runAs(alice, (runner) => runner.run(agent, 'archive document 1')).catch(
        (error: unknown) => error,
      );
      expect(causes(failure).find((error) => error instanceof ApplicationFaultError)?.cause).toBe(fault);
      expect(model.requests).toHaveLength(1);
      expect(archived).toHaveLength(0);
    } finally {
      validate.mockRestore();
    }
  });

  /** Alice's run interrupts on the approval; answers the serialized state, as stored between requests. */
  async function pause(env: Awaited<ReturnType<typeof setup>>): Promise<string> {
    const { agent } = env.agentFor([{ toolCalls: [CALL] }]);
    const result = await env.runAs(alice, (runner) => runner.run(agent, 'archive document 1'));
    expect(result.interruptions).toHaveLength(1);
    expect(env.archived).toHaveLength(0);
    return result.state.toString();
  }

  /** Restores `serialized` in a fresh agent and runner, approves its interruption the SDK's way, and resumes. */
  async function resume(env: Awaited<ReturnType<typeof setup>>, serialized: string, who = alice) {
    const { agent } = env.agentFor([{ text: 'done' }]);
    const state = await RunState.fromString(agent, serialized);
    for (const interruption of state.getInterruptions()) state.approve(interruption);
    return toolOutputs(await env.runAs(who, (runner) => runner.run(agent, state)));
  }

  it('executes the approved call once, resumed from the serialized state in a fresh runner (control)', async () => {
    const env = await setup();
    const serialized = await pause(env);
    await env.approveInVerdict(CALL.id, alice);
    expect(await resume(env, serialized)).toEqual(['archived 1']);
    expect(env.archived).toHaveLength(1);
  });

  it('never executes an SDK approval that Verdict did not approve', async () => {
    const env = await setup();
    const [answer] = await resume(env, await pause(env));
    expect(readNotExecutedMessage(answer as string)?.decision).toBe('require_confirmation');
    expect(env.archived).toHaveLength(0);
  });

  it('refuses an approval moved to changed arguments in the serialized state', async () => {
    const env = await setup();
    const serialized = await pause(env);
    await env.approveInVerdict(CALL.id, alice);
    const changed = serialized
      .split(JSON.stringify(JSON.stringify(CALL.input)).slice(1, -1))
      .join(JSON.stringify(JSON.stringify({ id: 1, note: 'and the rest' })).slice(1, -1));
    expect(changed).not.toBe(serialized);
    const [answer] = await resume(env, changed);
    expect(readNotExecutedMessage(answer as string)?.decision).toBe('require_confirmation');
    expect(env.archived).toHaveLength(0);
  });

  it('refuses an approval resumed by another actor', async () => {
    const env = await setup();
    const serialized = await pause(env);
    await env.approveInVerdict(CALL.id, alice);
    const [answer] = await resume(env, serialized, bob);
    expect(readNotExecutedMessage(answer as string)).not.toBeNull();
    expect(env.archived).toHaveLength(0);
  });

  it('refuses a replayed state: the receipt is single-use', async () => {
    const env = await setup();
    const serialized = await pause(env);
    await env.approveInVerdict(CALL.id, alice);
    expect(await resume(env, serialized)).toEqual(['archived 1']);
    const [replayed] = await resume(env, serialized);
    expect(readNotExecutedMessage(replayed as string)?.decision).toBe('deny');
    expect(env.archived).toHaveLength(1);
  });

  it('executes a duplicated delivery of the resumption once', async () => {
    const env = await setup();
    const serialized = await pause(env);
    await env.approveInVerdict(CALL.id, alice);
    const outputs = (await Promise.all([resume(env, serialized), resume(env, serialized)])).flat();
    expect(outputs.filter((output) => output === 'archived 1')).toHaveLength(1);
    expect(env.archived).toHaveLength(1);
  });

  it('refuses to make two capabilities one default tool name (attack); a chosen name tells them apart (control)', async () => {
    const { tools } = await bootWithRuntime(VerdictAgentsModule, VerdictAgentsTools, [restore('documents_archive')]);
    expect(() => tools.bound('documents.archive')).toThrow(VerdictConfigurationError);
    expect(() => tools.bound('documents.archive')).toThrow(
      'Capabilities "documents.archive" and "documents_archive" both make the OpenAI Agents tool name "documents_archive"',
    );

    const named = [tools.bound('documents.archive', { name: 'archive_document' }), tools.bound('documents_archive')];
    expect(named.map((made) => made.name)).toEqual(['archive_document', 'documents_archive']);
    expect(tools.bound('documents.rename').name).toBe('documents_rename');
  });

  it("spells names as the SDK's tool() does, so a hyphen cannot hide a twin (attack); a given name keeps that spelling (control)", async () => {
    const { tools } = await bootWithRuntime(VerdictAgentsModule, VerdictAgentsTools, [
      restore('documents-restore'),
      restore('documents_restore'),
    ]);
    // The SDK would name both tools documents_restore and keep one of them.
    expect(() => tools.bound('documents-restore')).toThrow(
      'Capabilities "documents-restore" and "documents_restore" both make the OpenAI Agents tool name "documents_restore"',
    );

    const named = [tools.bound('documents-restore', { name: 'restore-document' }), tools.bound('documents_restore')];
    expect(named.map((made) => made.name)).toEqual(['restore_document', 'documents_restore']);
  });
});
