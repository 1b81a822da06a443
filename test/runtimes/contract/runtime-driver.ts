import type { ActionContext } from '@verdict/nestjs';
import type { ContractApp, ContractToolName } from './contract-app.js';

/** One tool call a scripted model makes: the tool, its arguments, the call id. */
export interface ContractCall {
  readonly name: ContractToolName;
  readonly input: Record<string, unknown>;
  readonly id: string;
}

/** One model turn, the same for every runtime and model: tool calls, or a final text. */
export type ContractTurn = { readonly toolCalls: readonly ContractCall[] } | { readonly text: string };

/** What one invocation of a runtime (a run, or a resumption) gave. */
export interface ContractRun {
  /** What the tools answered the model during this invocation, in order: the text the model reads back. */
  readonly toolAnswers: readonly string[];
  /** Why the invocation failed (what it rejected with), or `undefined` when it completed. */
  readonly failure: unknown;
  /** The approval the run paused on, or `null`. */
  readonly paused: PausedRun | null;
}

/** A run paused on a tool call that requires confirmation, as the runtime keeps it between requests. */
export interface PausedRun {
  /**
   * Approves the paused call the runtime's own way and resumes as `who`. Each call resumes the same paused state
   * (a replay when it already ran). `changedArguments`: the approved call delivered with other arguments, through
   * the channel the runtime offers a client (an edited message history, an edited serialized state, an edit
   * decision).
   */
  resume(who: ActionContext, changedArguments?: Record<string, unknown>): Promise<ContractRun>;
}

/** One conversation: a model answering `turns` and a runtime running the contract's tools for it. */
export interface Conversation {
  /** Runs the agent as `who` on the customer's `message`. */
  start(who: ActionContext, message: string): Promise<ContractRun>;
  /** Every input the model received so far, serialized: to search for text the model must never read. */
  modelInputs(): readonly string[];
}

/** How the contract suite drives one agent runtime (with one kind of model: scripted in-process, or loopback). */
export interface RuntimeDriver {
  /** The runtime and model, for test names: `'LangChain createAgent (scripted model)'`. */
  readonly name: string;
  /**
   * Whether the runtime's runs give Verdict a provenance window (a provenance tracker observes the model's
   * inputs). Without one, a provenance rule applies as if the arguments were influenced (ADR 0082).
   */
  readonly observesProvenance: boolean;
  /**
   * Whether a model-input guard seals the model's answers in the history the client keeps: a history a client
   * edited (a paused call's arguments changed) then fails the next model call with `UnreleasedContextError`, before
   * the provider is called. Without a seal, the edited history reaches the model.
   */
  readonly sealsHistory: boolean;
  /** A conversation in `app` whose model answers `turns` in order. */
  conversation(app: ContractApp, turns: readonly ContractTurn[]): Promise<Conversation>;
}

/** What the runtime's model is: made per conversation from its turns, with the inputs it received. */
export interface ScriptedModel<M> {
  readonly model: M;
  inputs(): readonly string[];
}

/** Makes a runtime's model for one conversation: a scripted in-process model, or a provider client on loopback. */
export type ModelSource<M> = (turns: readonly ContractTurn[]) => Promise<ScriptedModel<M>>;

/** `error` and its chain of causes (runtimes wrap a tool's error in their own). */
export function causesOf(error: unknown): unknown[] {
  const chain: unknown[] = [];
  for (let at = error; at !== undefined && at !== null; at = (at as { cause?: unknown }).cause) {
    chain.push(at);
    if (typeof at !== 'object') break;
  }
  return chain;
}
