import { describe, expect, it } from '@jest/globals';
import {
  Agent,
  type AgentOutputItem,
  type Model,
  type ModelResponse,
  RunState,
  Runner,
  Usage,
  setTracingDisabled,
} from '@openai/agents';
import type { ActionContext } from '@verdict/nestjs';
import { VerdictAgentsModule, VerdictAgentsTools } from '@verdict/nestjs/openai-agents';
import { alice, bob } from '../pipeline/documents.fixture.js';
import { bootWithRuntime } from '../runtimes/runtime.fixture.js';

// Traces would be exported to OpenAI's platform: nothing leaves the test.
setTracingDisabled(true);

/** A model whose first turn calls tools with these raw argument texts (not necessarily JSON), then answers. */
class RawArgumentsModel implements Model {
  private turns = 0;

  constructor(private readonly calls: readonly { name: string; arguments: string; id: string }[]) {}

  async getResponse(): Promise<ModelResponse> {
    const output: AgentOutputItem[] =
      this.turns++ === 0
        ? this.calls.map(({ name, arguments: text, id }) => ({
            type: 'function_call',
            callId: id,
            name,
            arguments: text,
            status: 'completed',
          }))
        : [{ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'ok' }] }];
    return { usage: new Usage(), output };
  }

  getStreamedResponse(): AsyncIterable<never> {
    throw new Error('the model does not stream');
  }
}

async function setup(calls: readonly { name: string; arguments: string; id: string }[]) {
  const env = await bootWithRuntime(VerdictAgentsModule, VerdictAgentsTools);
  const tools = ['documents.read', 'documents.archive'].map((name) => env.tools.bound(name));
  const agent = new Agent({ name: 'Support', instructions: 'Help.', model: new RawArgumentsModel(calls), tools });
  const runAs = <T>(who: ActionContext, go: (runner: Runner) => Promise<T>) =>
    env.contexts.run(who, () => go(new Runner()));
  return { ...env, agent, runAs };
}

/** What the tools answered the model in a run. */
function toolOutputs(result: { newItems: readonly { type: string }[] }): unknown[] {
  return result.newItems
    .filter((item) => item.type === 'tool_call_output_item')
    .map((item) => (item as unknown as { output: unknown }).output);
}

const callIdOf = (item: { rawItem: unknown }) => (item.rawItem as { callId: string }).callId;

/**
 * Arguments that are not a JSON object never reach Verdict: the SDK parses them first and, for a tool whose
 * `needsApproval` is a function (every bound tool's), asks for approval without calling it. Verdict issued no
 * receipt and recorded nothing; rejecting the interruption runs nothing, and so does approving it (docs/runtimes/
 * openai-agents.md, ADR 0089 amended).
 */
describe('OpenAI Agents bound tools: arguments that are not a JSON object', () => {
  /** Each text, and what approving its interruption in the SDK leads to: the SDK's parse error, or a failed run. */
  const parseError = 'An error occurred while parsing tool arguments. Please try again with valid JSON.';
  const texts: [string, unknown[]][] = [
    ['not json', [parseError]],
    ['', [parseError]],
    ['{"id":1', [parseError]],
    ['[]', ['ToolCallError']],
    ['null', ['ToolCallError']],
    ['42', ['ToolCallError']],
  ];

  for (const [tool, capability] of [
    ['documents_read', 'never asks for confirmation'],
    ['documents_archive', 'requires confirmation'],
  ] as const)
    for (const [text, whenApproved] of texts) {
      it(`${tool} (${capability}), arguments ${JSON.stringify(text)}: an interruption Verdict never saw (attack)`, async () => {
        const env = await setup([{ name: tool, arguments: text, id: 'call_bad' }]);
        const paused = await env.runAs(alice, (runner) => runner.run(env.agent, 'go'));
        // The run pauses (it does not fail with the SDK's InvalidToolInputError) on an approval Verdict did not ask.
        expect(paused.interruptions.map(callIdOf)).toEqual(['call_bad']);
        expect(await env.approvals.challengeForToolCall('call_bad', alice)).toBeNull();
        expect(env.evidence.decisions()).toHaveLength(0);

        // Rejected, as the documented loop does for an interruption without a challenge: nothing runs, the run ends.
        const rejected = await RunState.fromString(env.agent, paused.state.toString());
        for (const interruption of rejected.getInterruptions()) rejected.reject(interruption);
        const ended = await env.runAs(alice, (runner) => runner.run(env.agent, rejected));
        expect(ended.interruptions).toEqual([]);
        expect(ended.finalOutput).toBe('ok');
        expect(toolOutputs(ended)).toEqual(['Tool execution was not approved.']);

        // Approved in the SDK anyway: still nothing runs (the model reads the SDK's parse error, or the run fails).
        const approved = await RunState.fromString(env.agent, paused.state.toString());
        for (const interruption of approved.getInterruptions()) approved.approve(interruption);
        const resumed = await env
          .runAs(alice, (runner) => runner.run(env.agent, approved))
          .then(toolOutputs, (error: unknown) => [(error as Error).name]);
        expect(resumed).toEqual(whenApproved);

        expect(env.evidence.decisions()).toHaveLength(0);
        expect(env.fixture.executions).toHaveLength(0);
        expect(env.archived).toHaveLength(0);
      });
    }

  it('a confirmation asked beside a malformed call pauses and resumes by the documented loop (control)', async () => {
    const env = await setup([
      { name: 'documents_archive', arguments: '{"id":1}', id: 'call_archive' },
      { name: 'documents_read', arguments: 'not json', id: 'call_bad' },
    ]);
    const result = await env.runAs(alice, (runner) => runner.run(env.agent, 'archive 1'));
    // docs/runtimes/openai-agents.md: keep the calls Verdict asks about; any other interruption is rejected.
    const asked: string[] = [];
    for (const interruption of result.interruptions) {
      const callId = callIdOf(interruption);
      const challenge = await env.approvals.challengeForToolCall(callId, alice);
      if (challenge === null) continue;
      asked.push(callId);
    }
    expect(asked).toEqual(['call_archive']);
    const saved = result.state.toString();

    await env.approveInVerdict('call_archive', alice);
    const state = await RunState.fromString(env.agent, saved);
    for (const interruption of state.getInterruptions()) {
      if (asked.includes(callIdOf(interruption))) state.approve(interruption);
      else state.reject(interruption);
    }
    const resumed = await env.runAs(alice, (runner) => runner.run(env.agent, state));
    expect(resumed.finalOutput).toBe('ok');
    expect(env.archived).toHaveLength(1);
    expect(toolOutputs(resumed)).toContain('Tool execution was not approved.');
  });

  it('valid arguments run without an interruption (control)', async () => {
    const env = await setup([{ name: 'documents_read', arguments: '{"id":2}', id: 'call_read' }]);
    const result = await env.runAs(bob, (runner) => runner.run(env.agent, 'read 2'));
    expect(result.interruptions).toEqual([]);
    expect(env.fixture.executions).toHaveLength(1);
    expect(result.finalOutput).toBe('ok');
  });
});
