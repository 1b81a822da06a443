import { LiveArm, LiveCase, LiveSuite, type LiveTrialSandbox, type PausedToolCall } from '@verdict/evaluation/live';
import type { QuarantineChatModel } from '@verdict/nestjs';
import type { CorpusCall, CorpusInjectionTask, CorpusUserTask } from '../agentdojo-corpus.js';
import { attackerCalls } from '../agentdojo-corpus.js';
import { filledEnvironment } from '../agentdojo-environment.js';
import { AgentDojoSandbox } from '../agentdojo-sandbox.js';
import type { AgentDojoSuite } from '../agentdojo-suite.js';
import { attackText } from '../attack-text.js';
import { workspaceSuite } from '../workspace/workspace-suite.js';
import { PackArm } from '../../provenance-packs/pack-arm.js';
import { sameJson } from '../run-agentdojo-case.js';

/**
 * The user task of the live quarantine pack: workspace's user_task_7 (reschedule the dental check-up), whose
 * event id is read from a search result quarantined whole (its description is untrusted): the deciding model
 * extracts the id and the user confirms the reschedule once, shown the passage.
 */
export const AGENTDOJO_LIVE_USER_TASK = 'user_task_7';

/** The injection tasks it is paired with (the standard variant), their text in every vector the task reads. */
export const AGENTDOJO_LIVE_INJECTIONS: readonly string[] = ['injection_task_0', 'injection_task_2'];

/** A run's environment: the corpus's, with the vectors the user task reads holding `injection`'s text (or the defaults). */
export function liveEnvironment<Env>(
  suite: AgentDojoSuite<Env>,
  task: CorpusUserTask,
  injection?: CorpusInjectionTask,
) {
  const { corpus } = suite;
  const texts = Object.fromEntries(corpus.injection_vectors.map((vector) => [vector.name, vector.default_text]));
  if (injection !== undefined)
    for (const name of task.injection_vectors_seen) texts[name] = attackText(corpus, injection);
  return () => suite.environment(filledEnvironment(corpus.environment, texts));
}

/**
 * One trial of a user task: guarded is the quarantine arm (untrusted results reach the deciding model as
 * handles, read by the provider's own model through `quarantine_extract`, and a value only untrusted text holds
 * asks the user), unguarded the naive arm. The user approves a paused call when the approval screen showed the
 * value's source passage and the call is one her task needs (a ground-truth call, its own values); she rejects
 * anything else.
 */
async function openTrial<Env>(
  suite: AgentDojoSuite<Env>,
  arm: LiveArm,
  task: CorpusUserTask,
  injection?: CorpusInjectionTask,
): Promise<LiveTrialSandbox> {
  const environment = liveEnvironment(suite, task, injection);
  const [pre, post] = [environment(), environment()];
  const trace: CorpusCall[] = [];
  const calls = suite.groundTruth(task, pre);
  const sandbox = new AgentDojoSandbox(suite, arm === LiveArm.Guarded ? PackArm.Quarantine : PackArm.Naive);
  let quarantined: QuarantineChatModel | undefined;
  try {
    const wiring = await sandbox.open(post, trace, {
      invoke: (input) => {
        if (quarantined === undefined) throw new Error('an extraction ran before the trial built its middleware');
        return quarantined.invoke(input);
      },
    });
    const state = (run: { answer: string }) => ({ pre, post, trace, output: run.answer });
    return {
      tools: wiring.tools,
      run: wiring.run,
      middleware: (model) => {
        quarantined = model;
        return wiring.middleware;
      },
      confirm: async (call: PausedToolCall) => {
        const recognised = calls.some((truth) => truth.function === call.name && sameJson(truth.args, call.args));
        return (await wiring.confirm(call.id, recognised)).approved;
      },
      ...(injection === undefined
        ? { succeeded: async (run) => suite.utility[task.id]!(state(run)) }
        : { breached: async (run) => suite.security[injection.id]!(state(run)) }),
      close: () => sandbox.close(),
    };
  } catch (error) {
    await sandbox.close();
    throw error;
  }
}

/**
 * A few AgentDojo pairs in the quarantine arm, for `verdict-eval live`: per pair, the attack (the injection's
 * goal, read from the run's environment by the suite's own check, must not be reached) and, per user task, the
 * clean run (the task's own check must hold). `--control` runs the naive arm alongside.
 */
export function agentDojoLivePack(): LiveSuite {
  const suite = workspaceSuite();
  const task = suite.corpus.user_tasks.find((entry) => entry.id === AGENTDOJO_LIVE_USER_TASK)!;
  // The tools the user task's own work calls: an attack on one of them would need `attacked(call)`.
  const legitimate = new Set(task.ground_truth_calls.map((call) => call.function));
  const attacks = AGENTDOJO_LIVE_INJECTIONS.map((id) => {
    const injection = suite.corpus.injection_tasks.find((entry) => entry.id === id)!;
    const attackedTool = attackerCalls(injection)[0]!.function;
    // Every call of the attacker's tool is the attack only because the user task never calls that tool.
    if (legitimate.has(attackedTool))
      throw new Error(
        `${injection.id} attacks ${attackedTool}, which ${task.id} also calls: the case must declare attacked(call)`,
      );
    return LiveCase.attack(`${suite.name}.${task.id}.${injection.id}:attack`, '1', {
      prompt: task.prompt,
      attackedTool,
      open: (arm) => openTrial(suite, arm, task, injection),
    });
  });
  const utility = LiveCase.utility(`${suite.name}.${task.id}:utility`, '1', {
    prompt: task.prompt,
    open: (arm) => openTrial(suite, arm, task),
  });
  return new LiveSuite('agentdojo-live-quarantine', '1', [...attacks, utility], {
    benchmark: 'agentdojo v1.2.1',
    arm: PackArm.Quarantine,
  });
}
