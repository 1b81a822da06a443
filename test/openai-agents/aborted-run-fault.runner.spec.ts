import { describe, expect, it } from '@jest/globals';
import { Agent, Runner, setTracingDisabled } from '@openai/agents';
import { once } from 'node:events';
import { ApplicationFaultError } from '@verdict/nestjs';
import { VerdictAgentsModule, VerdictAgentsTools } from '@verdict/nestjs/openai-agents';
import { bob, documentsFixture } from '../pipeline/documents.fixture.js';
import { bootWithRuntime } from '../runtimes/runtime.fixture.js';
import { ScriptedAgentsModel } from './scripted-agents-model.js';

// Traces would be exported to OpenAI's platform: nothing leaves the test.
setTracingDisabled(true);

/**
 * docs/runtimes/openai-agents.md: an application fault fails the run with `ApplicationFaultError`. A fault thrown
 * after the run's `signal` aborted is still a fault, whatever its name (`TimeoutError`, `AbortError`: an executor's
 * own I/O timing out); only the abort itself (the signal's reason) passes as it is.
 */
const FAULT = 'connection to db-primary:5432 user=admin password=hunter2 timed out';

/**
 * A run of the bound `slow_read` tool, whose executor runs until the application aborts the run (`controller`,
 * the run's `signal`) and then `ends` as it says; what the run rejects with.
 */
async function abortedRun(ends: (signal: AbortSignal) => unknown): Promise<unknown> {
  const controller = new AbortController();
  let started!: () => void;
  const running = new Promise<void>((resolve) => (started = resolve));
  const fixture = documentsFixture();
  const slow = fixture.documentCapability(
    { name: 'documents.slow', description: 'Read a document slowly' },
    async () => {
      started();
      await once(controller.signal, 'abort');
      return ends(controller.signal);
    },
  );
  const { tools, contexts } = await bootWithRuntime(VerdictAgentsModule, VerdictAgentsTools, [slow]);
  const model = new ScriptedAgentsModel([
    { toolCalls: [{ name: 'slow_read', input: { id: 2 }, id: 'call_slow' }] },
    { text: 'done' },
  ]);
  const agent = new Agent({
    name: 'Support',
    instructions: 'Help with documents.',
    model,
    tools: [tools.bound('documents.slow', { name: 'slow_read' })],
  });
  const run = contexts.run(bob, () => new Runner().run(agent, 'Read document 2.', { signal: controller.signal }));
  await running;
  controller.abort();
  return run.then(
    () => 'resolved',
    (error: unknown) => error,
  );
}

describe('a bound tool that faults after its OpenAI Agents run was aborted', () => {
  for (const name of ['TimeoutError', 'AbortError'])
    it(`attack: its own ${name} fails the run with ApplicationFaultError`, async () => {
      const outcome = await abortedRun(() => {
        throw Object.assign(new Error(FAULT), { name });
      });
      expect(outcome).toBeInstanceOf(ApplicationFaultError);
      expect((outcome as Error).message).not.toContain('hunter2');
    });

  it('control: the abort itself ends the run as the abort, not an application fault', async () => {
    const outcome = await abortedRun((signal) => {
      throw signal.reason;
    });
    expect(outcome).not.toBeInstanceOf(ApplicationFaultError);
    expect((outcome as Error).name).toBe('AbortError');
  });
});
