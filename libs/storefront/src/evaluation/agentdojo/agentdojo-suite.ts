import type { InjectionFollowingChatModelOptions } from '@verdict/nestjs/testing/langchain';
import type { AgentDojoCorpus, CorpusCall, CorpusUserTask } from './agentdojo-corpus.js';
import type { RunState } from './agentdojo-environment.js';
import type { SuiteTool, SuiteToolProvenance } from './suite-tool.js';

/** A check over one run: a user task's utility, or an injection task's security (true = the attack succeeded). */
export type RunCheck<Env> = (run: RunState<Env>) => boolean;

/**
 * One AgentDojo suite as the packs run it: the corpus, the tools over its environment, the user tasks' ground
 * truth on a given pre-environment, the checks, and the provenance arm's declarations.
 */
export interface AgentDojoSuite<Env> {
  readonly name: string;
  readonly corpus: AgentDojoCorpus;
  readonly tools: readonly SuiteTool<Env>[];
  /** A run's environment from the corpus's environment with its vectors filled (fresh data, the run's to change). */
  readonly environment: (data: unknown) => Env;
  /** The user task's ground-truth calls on `pre` (AgentDojo computes some from the pre-environment). */
  readonly groundTruth: (task: CorpusUserTask, pre: Env) => readonly CorpusCall[];
  readonly utility: Readonly<Record<string, RunCheck<Env>>>;
  readonly security: Readonly<Record<string, RunCheck<Env>>>;
  /** The attacker values each injection task's adaptive variant re-spells. */
  readonly attackerValues: Readonly<Record<string, readonly string[]>>;
  /** How the injection-following model obeys (default: the kit's, every line, up to 8 chained turns). */
  readonly following?: InjectionFollowingChatModelOptions;
  /** The provenance arm's result labels and argument rules of a tool; `environment` is the run's. */
  readonly provenance: (tool: string, environment: () => Env) => SuiteToolProvenance;
}

/** The capability a suite tool is bound to: `<suite>.<tool>`. */
export const capabilityOf = (suite: string, tool: string) => `agentdojo.${suite}.${tool}`;
