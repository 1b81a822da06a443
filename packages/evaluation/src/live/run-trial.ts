import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { LLMResult } from '@langchain/core/outputs';
import { fingerprint, fingerprintString } from '@verdict/nestjs';
import { errorClassOf } from '../suites/harness-error-class.js';
import type { LiveCase, LiveTrialRun, LiveTrialSandbox, PausedToolCall } from './live-case.js';
import type { LiveProvider } from './live-provider.js';
import { ProviderErrorClass, providerErrorClassOf } from './provider-error-class.js';
import { LiveArm, TrialOutcome } from './trial-outcome.js';
import type { TrialRecord, TrialToolCall } from './trial-record.js';

/** Where a trial is in the plan: case, arm and 0-based index. */
export interface TrialKey {
  readonly liveCase: LiveCase;
  readonly arm: LiveArm;
  readonly index: number;
}

/**
 * Runs one trial: a fresh sandbox for the arm, a fresh chat model from the provider, a real `createAgent`
 * loop on the case's prompt (with the sandbox's middleware, built from another fresh chat model, and — when the
 * sandbox answers confirmations — a checkpoint, resumed with its answer each time the run pauses), then the
 * sandbox's own judgement. Provider failures become `provider_error`
 * with their class, anything else thrown becomes `harness_error`; neither is a pass or a failure. A breach is
 * not hidden by either: an attack trial whose run fails (the model request after the attack's tool call, a
 * middleware) still asks the sandbox, and a breach found is scored `breach` with the failure's class; a sandbox
 * whose `close()` throws leaves a breach a breach (any other outcome is then a `harness_error`).
 */
export async function runTrial({ liveCase, arm, index }: TrialKey, provider: LiveProvider): Promise<TrialRecord> {
  let tokens: number | null = null;
  const base = { case: liveCase.id, arm, index };
  const failed = (thrown: unknown, toolCalls: TrialToolCall[] = []): TrialRecord => {
    const providerError = providerErrorClassOf(thrown);
    return {
      ...base,
      outcome: providerError === null ? TrialOutcome.HarnessError : TrialOutcome.ProviderError,
      errorClass: providerError ?? errorClassOf(thrown),
      attackedToolProposed: null,
      toolCalls,
      transcriptFingerprint: null,
      tokens,
    };
  };
  let sandbox: LiveTrialSandbox;
  try {
    sandbox = await liveCase.definition.open(arm);
  } catch (thrown) {
    return failed(thrown);
  }
  // The content of each tool message as it left the agent's middleware: what a failed run's sandbox is asked about
  // (the run's messages are lost with the failure).
  const toolResults: string[] = [];
  // Whether the finished run's sandbox was asked `breached()`: a failure after that is not asked again.
  let judged = false;
  const play = async (): Promise<TrialRecord> => {
    const { createAgent, createMiddleware } = await import('langchain');
    const model = await provider.createChatModel();
    const middleware =
      sandbox.middleware === undefined ? [] : [...sandbox.middleware(await provider.createChatModel())];
    // Each tool message as the model reads it (the state a finished run is judged on). Around a middleware that
    // wraps tool calls (one that releases or replaces a result), a wrapper first in the list, so it wraps them all;
    // with none, the tool's own message as it ends — a wrapper there would take the answering of a tool's error
    // from the tool node and end the run instead.
    const wrapsToolCalls = middleware.some((entry) => entry.wrapToolCall !== undefined);
    const recordToolResults = createMiddleware({
      name: 'VerdictLiveTrialToolResults',
      wrapToolCall: async (request, handler) => {
        const result = await handler(request);
        if (ToolMessage.isInstance(result)) toolResults.push(textOf(result.content));
        return result;
      },
    });
    // A sandbox that answers confirmations gets a checkpoint to resume the paused run from.
    const checkpointer =
      sandbox.confirm === undefined ? undefined : new (await import('@langchain/langgraph')).MemorySaver();
    const agent = createAgent({
      model,
      tools: [...sandbox.tools],
      middleware: wrapsToolCalls ? [recordToolResults, ...middleware] : middleware,
      checkpointer,
    });
    const { systemPrompt, prompt } = liveCase.definition;
    const input: BaseMessage[] = [
      ...(systemPrompt === undefined ? [] : [new SystemMessage(systemPrompt)]),
      new HumanMessage(prompt),
    ];
    const countTokens = {
      handleLLMEnd(output: LLMResult) {
        for (const generation of output.generations.flat()) {
          const usage = (generation as { message?: { usage_metadata?: { total_tokens?: unknown } } }).message
            ?.usage_metadata?.total_tokens;
          if (typeof usage === 'number' && Number.isFinite(usage)) tokens = (tokens ?? 0) + usage;
        }
      },
    };
    const recordToolEnds = {
      handleToolEnd(output: unknown) {
        if (!wrapsToolCalls && ToolMessage.isInstance(output)) toolResults.push(textOf(output.content));
      },
    };
    const config = {
      callbacks: [countTokens, recordToolEnds],
      configurable: { thread_id: `${liveCase.id}.${arm}.${index}` },
    };
    let state = await sandbox.run(() => agent.invoke({ messages: input }, config));
    for (let paused = pausedCall(state); paused !== undefined && sandbox.confirm !== undefined;) {
      const approved = await sandbox.run(() => sandbox.confirm!(paused!));
      const { Command } = await import('@langchain/langgraph');
      const { approveToolCall, rejectToolCall } = await import('@verdict/nestjs/langchain');
      const resume = (approved ? approveToolCall : rejectToolCall)(paused.id);
      state = await sandbox.run(() => agent.invoke(new Command({ resume }), config));
      paused = pausedCall(state);
    }
    const messages = state.messages as BaseMessage[];
    const toolNames = new Set(
      [...sandbox.tools, ...middleware.flatMap((entry) => entry.tools ?? [])].map(
        (tool) => (tool as { name?: string }).name,
      ),
    );
    const proposed = messages.filter((m) => AIMessage.isInstance(m)).flatMap((m) => m.tool_calls ?? []);
    const toolCalls = proposed.map((call) => ({
      tool: toolNames.has(call.name) ? call.name : `unknown:${fingerprintString(call.name).slice(0, 16)}`,
      argumentsFingerprint: fingerprint(JSON.parse(JSON.stringify(call.args ?? {}))),
    }));
    const malformed = messages.some((m) => AIMessage.isInstance(m) && (m.invalid_tool_calls ?? []).length > 0);
    const providerError = {
      ...failed(null, toolCalls),
      outcome: TrialOutcome.ProviderError,
      errorClass: ProviderErrorClass.MalformedToolCall,
    };
    const transcriptFingerprint = fingerprint(messages.map(describeMessage));
    const run: LiveTrialRun = {
      answer: textOf(messages.at(-1)?.content ?? ''),
      toolResults: messages.filter((m) => ToolMessage.isInstance(m)).map((m) => textOf(m.content)),
    };
    if (liveCase.purpose === 'attack') {
      if (sandbox.breached === undefined) throw new TypeError('an attack sandbox must implement breached()');
      // The attack, not merely the attacked tool: a harmless call of a legitimate tool does not test the gate.
      const attackProposed = () =>
        proposed.some((call) => liveCase.isAttack({ name: call.name, args: call.args ?? {} }));
      judged = true;
      // Asked first, even when the model also wrote a malformed call or the case's `attacked` throws: a breach that
      // happened is never a provider or harness error.
      if (await sandbox.breached(run)) {
        let attackedToolProposed = true;
        try {
          attackedToolProposed = attackProposed();
        } catch {
          // The breach stands; what the predicate would have said does not change it.
        }
        const outcome = TrialOutcome.Breach;
        return { ...base, outcome, errorClass: null, attackedToolProposed, toolCalls, transcriptFingerprint, tokens };
      }
      if (malformed) return providerError;
      // A throw of `attacked` here ends the trial as a harness_error: nothing breached, and nothing says the gate held.
      const attackedToolProposed = attackProposed();
      const outcome = attackedToolProposed ? TrialOutcome.Contained : TrialOutcome.NotExercised;
      return { ...base, outcome, errorClass: null, attackedToolProposed, toolCalls, transcriptFingerprint, tokens };
    }
    if (malformed) return providerError;
    if (sandbox.succeeded === undefined) throw new TypeError('a utility sandbox must implement succeeded()');
    const outcome = (await sandbox.succeeded(run)) ? TrialOutcome.UtilitySuccess : TrialOutcome.UtilityFailure;
    return { ...base, outcome, errorClass: null, attackedToolProposed: null, toolCalls, transcriptFingerprint, tokens };
  };
  /**
   * A failed run of an attack: the sandbox is asked whether the forbidden outcome happened before the failure (a
   * tool that ran, then a 500 on the next model turn), with the run as far as the trial saw it — no answer, and the
   * results of the tools that ran. A breach found is scored `breach`, the failure's class kept as `errorClass`;
   * otherwise (or when `breached` throws too) the failure stands. Utility trials are never asked: their failure stands.
   */
  const failedRun = async (thrown: unknown): Promise<TrialRecord> => {
    const record = failed(thrown);
    if (liveCase.purpose !== 'attack' || judged || sandbox.breached === undefined) return record;
    try {
      return (await sandbox.breached({ answer: '', toolResults: [...toolResults] }))
        ? { ...record, outcome: TrialOutcome.Breach }
        : record;
    } catch {
      return record;
    }
  };
  let record: TrialRecord;
  try {
    record = await play();
  } catch (thrown) {
    record = await failedRun(thrown);
  }
  try {
    await sandbox.close();
  } catch (thrown) {
    // A breach that happened stays one; any other outcome of a sandbox that cannot close is the harness's fault.
    if (record.outcome === TrialOutcome.Breach)
      return { ...record, errorClass: record.errorClass ?? errorClassOf(thrown) };
    return { ...failed(thrown), outcome: TrialOutcome.HarnessError, errorClass: errorClassOf(thrown) };
  }
  return record;
}

/** The tool call a run is paused on for the user's confirmation, as the model proposed it; none when it ended. */
function pausedCall(state: {
  readonly messages: readonly BaseMessage[];
  readonly __interrupt__?: readonly { readonly value?: unknown }[];
}): PausedToolCall | undefined {
  const value = state.__interrupt__?.[0]?.value as { type?: unknown; toolCallId?: unknown } | undefined;
  if (value?.type !== 'verdict.approval_required' || typeof value.toolCallId !== 'string') return undefined;
  const call = state.messages
    .filter((m) => AIMessage.isInstance(m))
    .flatMap((m) => m.tool_calls ?? [])
    .find((c) => c.id === value.toolCallId);
  if (call === undefined) throw new Error('the run paused on a tool call the model did not propose');
  return { id: value.toolCallId, name: call.name, args: call.args ?? {} };
}

function textOf(content: BaseMessage['content']): string {
  return typeof content === 'string' ? content : JSON.stringify(content);
}

/** A message as the transcript fingerprint covers it: kind, content fingerprint and tool calls by fingerprint. */
function describeMessage(message: BaseMessage): unknown {
  const content = textOf(message.content);
  const calls = AIMessage.isInstance(message)
    ? (message.tool_calls ?? []).map((call) => [call.name, fingerprint(JSON.parse(JSON.stringify(call.args ?? {})))])
    : [];
  return [message.getType(), fingerprintString(content), calls];
}
