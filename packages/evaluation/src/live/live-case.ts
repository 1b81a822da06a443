import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { ClientTool } from '@langchain/core/tools';
import type { AgentMiddleware } from 'langchain';
import type { CasePurpose } from '../cases/case-purpose.js';
import { isIdentifier, isVersion } from '../cases/evaluation-identifier.js';
import type { LiveArm } from './trial-outcome.js';
import { LiveSuiteError } from './live-suite.error.js';

/**
 * What the agent run produced, for the sandbox's judgement: the final answer and every tool result the
 * model was shown. It is read in memory and never enters a report.
 */
export interface LiveTrialRun {
  /** The text of the model's last message. */
  readonly answer: string;
  /** The content of every tool message, in order: what reached the model. */
  readonly toolResults: readonly string[];
}

/** A tool call as the model proposed it: the tool's name and its arguments. Read in memory, never reported. */
export interface ProposedToolCall {
  readonly name: string;
  readonly args: Readonly<Record<string, unknown>>;
}

/** The tool call a live run paused on for the user: as the model proposed it. Read in memory, never reported. */
export interface PausedToolCall extends ProposedToolCall {
  readonly id: string;
}

/**
 * One trial's fresh sandbox, opened by a live case for one arm: the tools the agent gets, the context the
 * agent runs in, what the sandbox observed afterwards, and how to close it.
 *
 * @example
 * const sandbox: LiveTrialSandbox = {
 *   tools: [s.tools.bound(lookupOrder, 'orders.view'), s.tools.bound(cancelOrder, 'orders.cancel')],
 *   run: (invoke) => s.contexts.run(customer72(), invoke),
 *   breached: async () => (await orderStatus(s, 1001)) === 'cancelled',
 *   close: () => s.close(),
 * };
 */
export interface LiveTrialSandbox {
  /** The agent's tools in this arm: bound to Verdict capabilities (guarded) or naive (unguarded). */
  readonly tools: readonly ClientTool[];
  /** Runs the agent invocation in the application's context (e.g. `contexts.run(actor, invoke)`). */
  run<T>(invoke: () => Promise<T>): Promise<T>;
  /**
   * The agent's middleware in this arm, built from `model`: a fresh chat model of the trial's provider with no
   * tools bound (e.g. the quarantined model of `QuarantinedReaders`' middleware). Tools a middleware adds
   * (`quarantine_extract`) are named in the report like the sandbox's own.
   */
  middleware?(model: BaseChatModel): readonly AgentMiddleware[];
  /**
   * The user's answer when the run pauses on a confirmation (`verdict.approval_required`): the sandbox records
   * the decision (`ApprovalService.approve` / `reject`) and returns whether it approved; the trial resumes the
   * run from its checkpoint with that answer, as often as it pauses. Without it, a paused run ends the trial.
   */
  confirm?(call: PausedToolCall): Promise<boolean>;
  /**
   * Attack cases: whether the forbidden outcome happened — read from the sandbox's own state (an order
   * cancelled) or from what reached the model (another customer's data in a tool result). Also asked when the run
   * failed (a provider error or a throw after a tool ran): `run` is then what the trial saw before the failure, an
   * empty `answer` and the results of the tools that ran.
   */
  breached?(run: LiveTrialRun): Promise<boolean>;
  /** Utility cases: whether the legitimate work was done, from the sandbox's state or the run. */
  succeeded?(run: LiveTrialRun): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * What a live case needs: the prompt the model gets, and a sandbox per trial. An attack also names the
 * tool whose call is the attack (`attackedTool`, narrowed by `attacked` when that tool is also a legitimate
 * one): a trial in which the model never proposes the attack did not exercise the gate.
 */
export interface LiveCaseDefinition {
  /** The user's message. Only its fingerprint enters a report. */
  readonly prompt: string;
  /** The system prompt, if any. Only its fingerprint enters a report. */
  readonly systemPrompt?: string;
  /** Opens a fresh sandbox for one trial of one arm. Called once per trial; never shared. */
  open(arm: LiveArm): Promise<LiveTrialSandbox>;
}

/** A live attack: the call the injection (or the user) is after. */
export interface LiveAttackDefinition extends LiveCaseDefinition {
  /** The tool whose call is the attack; the report names it. */
  readonly attackedTool: string;
  /**
   * Which proposed calls of `attackedTool` are the attack, by their arguments (e.g. another customer's order id).
   * A trial is exercised only when the model proposed a call of `attackedTool` for which this returns true.
   *
   * Without it, every call of `attackedTool` is the attack. That is right only when the case's legitimate work
   * never calls `attackedTool`; when it does (a lookup tool the user may use on her own order, and the attack
   * uses on another's), declare `attacked`, or a harmless call would count as `contained`. Called in memory,
   * never reported; a throw ends the trial as a `harness_error` unless the sandbox says it breached (a breach is
   * asked first, and stands).
   */
  attacked?(call: ProposedToolCall): boolean;
}

/**
 * A case of a live suite: run N times against a real chat model inside `createAgent`, each trial in a
 * fresh sandbox. Built with {@link LiveCase.attack} or {@link LiveCase.utility}.
 *
 * @example
 * const injected = LiveCase.attack('injected-cancel', '1', {
 *   prompt: 'What did I order in 1002?',
 *   attackedTool: 'cancel_order',
 *   attacked: (call) => call.args.orderId === 1001, // cancelling her own order 1002 is not the attack
 *   open: async (arm) => storefrontTrial(arm),
 * });
 * @throws LiveSuiteError for a bad id or version, an empty prompt, a missing attacked tool or an `attacked`
 * that is not a function
 */
export class LiveCase {
  private constructor(
    readonly id: string,
    readonly version: string,
    readonly purpose: CasePurpose,
    readonly definition: LiveCaseDefinition,
    readonly attackedTool: string | null,
  ) {
    if (!isIdentifier(id))
      throw new LiveSuiteError(
        'a case id must be 1-200 characters of letters, digits and . _ : / - (starting with a letter or digit)',
      );
    if (!isVersion(version))
      throw new LiveSuiteError(`case ${id}: the version must be 1-64 letters, digits and . _ + -`);
    if (typeof definition.prompt !== 'string' || definition.prompt === '')
      throw new LiveSuiteError(`case ${id}: the prompt must be a non-empty string`);
    if (typeof definition.open !== 'function') throw new LiveSuiteError(`case ${id}: open(arm) must be a function`);
    if (attackedTool !== null && !/^[A-Za-z0-9_-]{1,64}$/.test(attackedTool))
      throw new LiveSuiteError(`case ${id}: attackedTool must be a tool name (1-64 letters, digits, _ or -)`);
    const attacked = (definition as Partial<LiveAttackDefinition>).attacked;
    if (attacked !== undefined && typeof attacked !== 'function')
      throw new LiveSuiteError(`case ${id}: attacked(call) must be a function`);
  }

  /**
   * Whether a proposed call is this case's attack: a call of the attacked tool that the case's `attacked`
   * picks out (every call of it when the case declares none). Always false for a utility case.
   */
  isAttack(call: ProposedToolCall): boolean {
    if (this.attackedTool === null || call.name !== this.attackedTool) return false;
    const { attacked } = this.definition as Partial<LiveAttackDefinition>;
    return attacked === undefined ? true : attacked.call(this.definition, call) === true;
  }

  /** A case that measures containment: breach, contained or not exercised per trial. */
  static attack(id: string, version: string, definition: LiveAttackDefinition): LiveCase {
    return new LiveCase(id, version, 'attack', definition, definition.attackedTool ?? '');
  }

  /** A case that measures whether legitimate work still succeeds: utility success or failure per trial. */
  static utility(id: string, version: string, definition: LiveCaseDefinition): LiveCase {
    return new LiveCase(id, version, 'utility', definition, null);
  }
}
