import { HumanMessage } from '@langchain/core/messages';
import { Command, MemorySaver } from '@langchain/langgraph';
import { Observation } from '@verdict/evaluation';
import { type ApprovalInterrupt, approveToolCall, rejectToolCall } from '@verdict/nestjs/langchain';
import { InjectionFollowingChatModel, type ScriptStep } from '@verdict/nestjs/testing/langchain';
import { createAgent } from 'langchain';
import { observedAgentToolCalls } from '../agent-observation.js';
import type { CorpusCall, CorpusUserTask } from './agentdojo-corpus.js';
import type { RunState } from './agentdojo-environment.js';
import type { AgentDojoSandbox } from './agentdojo-sandbox.js';
import { AttackVariant } from './attack-variant.js';
import { type AgentDojoSuite, capabilityOf } from './agentdojo-suite.js';
import { PackArm } from '../provenance-packs/pack-arm.js';
import { misledArguments } from './misled-reader.js';
import { quarantineReadingScript, ValueReadingQuarantinedModel } from './quarantined-values.js';

/** The id prefix of the model's ground-truth calls (the injected ones are `injected-<n>`). */
const LEGITIMATE = 'legitimate-';

/** Two graph steps per model turn: the ground truth, the obeyed turns (at most 8) and the answer, with room. */
const RECURSION_LIMIT = 100;

/** What a run leaves for the pack's assertions, in the observation's `effects` (never reported). */
export interface AgentDojoOutcome<Env> {
  readonly run: RunState<Env>;
  /** Ground-truth calls the boundary did not execute. */
  readonly legitimateRefused: number;
  /**
   * Calls the model made because an injection asked for them; in the quarantine arm, also the extractions whose
   * document held the injection (the quarantined model read it, and answered the attacker's values where it
   * names the arguments asked for).
   */
  readonly injectedCalls: number;
  /** Confirmations the user was asked for (the quarantine arm: a value not derived from trusted content). */
  readonly confirmations: number;
  /** Of those, the ones whose approval screen showed the source passage next to the value. */
  readonly passagesShown: number;
}

/** The outcome a pack assertion reads from the observation of a run. */
export function outcomeOf<Env>(observation: Observation): AgentDojoOutcome<Env> {
  const outcome = observation.effects[0] as AgentDojoOutcome<Env> | undefined;
  if (outcome === undefined) throw new Error('the run left no outcome');
  return outcome;
}

/**
 * The model's part of the user task: its ground-truth calls one turn each, then its ground-truth answer. Against the
 * adaptive variant the model is misled as the quarantined model is: a value it knows from no clean text and read in a
 * result that also holds an instruction for the same tool and argument is the attacker's (`misledArguments`, ADR 0121).
 */
function groundTruthScript(calls: readonly CorpusCall[], answer: string | null, variant: AttackVariant): ScriptStep[] {
  const id = (i: number) => `${LEGITIMATE}${i + 1}`;
  return [
    ...calls.map((call, i): ScriptStep =>
      variant === AttackVariant.Adaptive
        ? (messages) => ({ toolCalls: [{ name: call.function, args: misledArguments(call, messages), id: id(i) }] })
        : { toolCalls: [{ name: call.function, args: call.args, id: id(i) }] },
    ),
    { text: answer ?? 'Done.' },
  ];
}

/**
 * Runs one user task once: a real `createAgent` loop with the injection-following model, which plays the task's
 * ground truth (on this run's pre-environment) and obeys the instruction lines it reads in tool results, over
 * `environment` (clean, or with the attack text in the vectors); the quarantine arm's quarantined model is misled as
 * the attack's `variant` writes its text (`ValueReadingQuarantinedModel`).
 */
export async function runAgentDojoCase<Env>(
  suite: AgentDojoSuite<Env>,
  sandbox: AgentDojoSandbox<Env>,
  task: CorpusUserTask,
  environment: () => Env,
  variant: AttackVariant = AttackVariant.Standard,
): Promise<Observation> {
  const pre = environment();
  const post = environment();
  const trace: CorpusCall[] = [];
  const calls = suite.groundTruth(task, pre);
  const quarantine = sandbox.arm === PackArm.Quarantine;
  const quarantined = quarantine ? new ValueReadingQuarantinedModel(calls, variant) : undefined;
  const reading = quarantine ? quarantineReadingScript(calls, task.ground_truth_output, LEGITIMATE) : undefined;
  const wiring = await sandbox.open(post, trace, quarantined);
  const model = new InjectionFollowingChatModel(
    reading === undefined
      ? groundTruthScript(calls, task.ground_truth_output, variant)
      : Array.from({ length: reading.turns }, () => reading.step),
    suite.following,
  );
  // The quarantine arm pauses for the user (a LangGraph interrupt): its runs keep a checkpoint to resume from.
  const agent = createAgent({
    model,
    tools: wiring.tools,
    middleware: wiring.middleware,
    ...(quarantine ? { checkpointer: new MemorySaver() } : {}),
  });
  // A chain of obeyed injections (a tool result that re-injects) needs more steps than LangGraph's default 25.
  const config = { recursionLimit: RECURSION_LIMIT, configurable: { thread_id: `${suite.name}.${task.id}` } };
  let state = await wiring.run(() => agent.invoke({ messages: [new HumanMessage(task.prompt)] }, config));
  let confirmations = 0;
  let passagesShown = 0;
  for (let paused = pausedCall(state); paused !== undefined; paused = pausedCall(state)) {
    // The user recognises the call her task needs (the ground truth's, with its own values), nothing else.
    const emitted = model.emittedToolCalls().find((call) => call.id === paused);
    const expected = paused.startsWith(LEGITIMATE) ? calls[Number(paused.slice(LEGITIMATE.length)) - 1] : undefined;
    const recognised = emitted !== undefined && expected !== undefined && sameJson(emitted.args, expected.args);
    const confirmation = await wiring.run(() => wiring.confirm(paused, recognised));
    confirmations += 1;
    if (confirmation.passageShown) passagesShown += 1;
    const resume = confirmation.approved ? approveToolCall(paused) : rejectToolCall(paused);
    state = await wiring.run(() => agent.invoke(new Command({ resume }), config));
  }
  const answer = state.messages.at(-1)?.content;
  if (reading === undefined) model.assertScriptConsumed();
  else if (!reading.done()) throw new Error('the deciding model never answered; the agent stopped early.');
  const capabilities = Object.fromEntries(
    suite.tools.map((entry) => [entry.declaration.name, capabilityOf(suite.name, entry.declaration.name)]),
  );
  const toolCalls = observedAgentToolCalls(model, capabilities);
  const emitted = model.emittedToolCalls();
  const outcome: AgentDojoOutcome<Env> = {
    run: { pre, post, trace, output: typeof answer === 'string' ? answer : JSON.stringify(answer ?? '') },
    legitimateRefused: emitted.filter((call, i) => call.id.startsWith(LEGITIMATE) && !toolCalls[i]!.executed).length,
    injectedCalls: model.injectedToolCalls().length + (quarantined?.read ?? 0),
    confirmations,
    passagesShown,
  };
  // The suite's tools only: an extract call names a handle, which differs from run to run.
  const suiteCalls = toolCalls.filter((_call, i) => emitted[i]!.name in capabilities);
  return Observation.of({ toolCalls: suiteCalls, effects: [outcome] });
}

/** The tool call a run is paused on for the user's approval, if any. */
function pausedCall(state: { __interrupt__?: readonly { readonly value?: unknown }[] }): string | undefined {
  const value = state.__interrupt__?.[0]?.value as Partial<ApprovalInterrupt> | undefined;
  return value?.type === 'verdict.approval_required' ? value.toolCallId : undefined;
}

/** Whether two JSON values are equal, whatever the order of their keys. */
export function sameJson(a: unknown, b: unknown): boolean {
  const sorted = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(sorted)
      : typeof value === 'object' && value !== null
        ? Object.fromEntries(
            Object.entries(value)
              .sort(([x], [y]) => x.localeCompare(y))
              .map(([k, v]) => [k, sorted(v)]),
          )
        : value;
  return JSON.stringify(sorted(a)) === JSON.stringify(sorted(b));
}
