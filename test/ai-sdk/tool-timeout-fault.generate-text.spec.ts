import { describe, expect, it } from '@jest/globals';
import { once } from 'node:events';
import { type ModelMessage, generateText, stepCountIs, streamText } from 'ai';
import { ApplicationFaultError } from '@verdict/nestjs';
import { VerdictAiSdkModule, VerdictAiSdkTools } from '@verdict/nestjs/ai-sdk';
import { bob, documentsFixture } from '../pipeline/documents.fixture.js';
import { bootWithRuntime } from '../runtimes/runtime.fixture.js';
import { scriptedLanguageModel, scriptedStreamingModel } from './scripted-language-model.js';

/**
 * docs/runtimes/ai-sdk.md: an application fault fails the generation (`ApplicationFaultError`), never reaching the
 * model as text. With a tool timeout (`timeout: { toolMs }`), the AI SDK aborts that tool's own signal and hands the
 * model the text of whatever the tool then throws: a fault thrown after that abort is still a fault, whatever its
 * name (`TimeoutError`, `AbortError`: an executor's own I/O timing out). Only the abort itself (the signal's reason)
 * passes as it is.
 */
const FAULT = 'connection to db-primary:5432 user=admin password=hunter2 refused';

/** The bound `slow_read` tool, whose executor runs until its call's signal aborts and then `ends` as it says. */
async function slowRead(ends: (signal: AbortSignal) => unknown) {
  let signal: AbortSignal | undefined;
  const fixture = documentsFixture();
  const slow = fixture.documentCapability(
    { name: 'documents.slow', description: 'Read a document slowly' },
    async () => {
      await once(signal!, 'abort');
      return ends(signal!);
    },
  );
  const { tools, contexts } = await bootWithRuntime(VerdictAiSdkModule, VerdictAiSdkTools, [slow]);
  const bound = tools.bound('documents.slow', { name: 'slow_read' });
  // The signal the AI SDK hands this call (the generation's, merged with the tool's timeout).
  const execute = (input: unknown, options: Parameters<NonNullable<typeof bound.execute>>[1]) => {
    signal = options.abortSignal;
    return bound.execute!(input as never, options);
  };
  return { tools: { slow_read: { ...bound, execute } }, contexts };
}

const script = [{ toolCalls: [{ name: 'slow_read', input: { id: 2 }, id: 'call_slow' }] }, { text: 'done' }];
const messages: ModelMessage[] = [{ role: 'user', content: 'Read document 2.' }];
const timeout = { toolMs: 1 };

/** Faults of the executor's own I/O, named as an abort or a timeout is (p-timeout, got, AWS SDK, `fetch`). */
const namedFaults = [
  ['a library TimeoutError', () => Object.assign(new Error(FAULT), { name: 'TimeoutError' })],
  ['a library AbortError', () => Object.assign(new Error(FAULT), { name: 'AbortError' })],
  ['its own fetch timing out (DOMException TimeoutError)', () => new DOMException(FAULT, 'TimeoutError')],
] as const;

describe('a bound tool that faults after its AI SDK tool timeout', () => {
  it('attack: generateText rejects with ApplicationFaultError; the model never reads the fault', async () => {
    const { tools, contexts } = await slowRead(() => {
      throw new Error(FAULT);
    });
    const model = scriptedLanguageModel(script);
    const run = contexts.run(bob, () => generateText({ model, tools, messages, stopWhen: stepCountIs(3), timeout }));
    await expect(run).rejects.toBeInstanceOf(ApplicationFaultError);
    expect(model.doGenerateCalls).toHaveLength(1);
  });

  it('attack: streamText rejects with ApplicationFaultError; the model never reads the fault', async () => {
    const { tools, contexts } = await slowRead(() => {
      throw new Error(FAULT);
    });
    const model = scriptedStreamingModel(script);
    const run = contexts.run(bob, () => streamText({ model, tools, messages, stopWhen: stepCountIs(3), timeout }).text);
    await expect(run).rejects.toBeInstanceOf(ApplicationFaultError);
    expect(JSON.stringify(model.doStreamCalls.map((call) => call.prompt))).not.toContain('hunter2');
  });

  for (const [label, fault] of namedFaults)
    it(`attack: ${label} after the timeout — generateText rejects with ApplicationFaultError`, async () => {
      const { tools, contexts } = await slowRead(() => {
        throw fault();
      });
      const model = scriptedLanguageModel(script);
      const run = contexts.run(bob, () => generateText({ model, tools, messages, stopWhen: stepCountIs(3), timeout }));
      await expect(run).rejects.toBeInstanceOf(ApplicationFaultError);
      expect(model.doGenerateCalls).toHaveLength(1);
    });

  it('attack: a library TimeoutError after the timeout — streamText rejects with ApplicationFaultError', async () => {
    const { tools, contexts } = await slowRead(() => {
      throw namedFaults[0][1]();
    });
    const model = scriptedStreamingModel(script);
    const run = contexts.run(bob, () => streamText({ model, tools, messages, stopWhen: stepCountIs(3), timeout }).text);
    await expect(run).rejects.toBeInstanceOf(ApplicationFaultError);
    expect(JSON.stringify(model.doStreamCalls.map((call) => call.prompt))).not.toContain('hunter2');
  });

  it('control: the abort itself is the timeout the AI SDK reports, not an application fault', async () => {
    const { tools, contexts } = await slowRead((signal) => {
      throw signal.reason;
    });
    const model = scriptedLanguageModel(script);
    const result = await contexts.run(bob, () =>
      generateText({ model, tools, messages, stopWhen: stepCountIs(3), timeout }),
    );
    // The AI SDK answers the model its own error text for the timed-out call, and the generation goes on.
    expect(result.text).toBe('done');
    expect(JSON.stringify(model.doGenerateCalls[1]?.prompt)).toContain('"type":"error-text"');
  });

  it('control: a call that completes after the timeout is answered with its output', async () => {
    // Verdict hands the executor no signal: the call runs to its end, and the SDK answers the model its output.
    const { tools, contexts } = await slowRead(() => 'the late report');
    const model = scriptedLanguageModel(script);
    const result = await contexts.run(bob, () =>
      generateText({ model, tools, messages, stopWhen: stepCountIs(3), timeout }),
    );
    expect(result.text).toBe('done');
    expect(JSON.stringify(model.doGenerateCalls[1]?.prompt)).toContain('the late report');
  });
});
