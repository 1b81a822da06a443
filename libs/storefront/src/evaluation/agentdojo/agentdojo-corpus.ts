import { readFileSync } from 'node:fs';

/** One ground-truth call of a task, as AgentDojo's replay recorded it on the default environment. */
export interface CorpusCall {
  readonly function: string;
  readonly args: Record<string, unknown>;
}

/** A tool parameter as the suite declares it. */
export interface CorpusParameter {
  readonly name: string;
  readonly type: string;
  readonly description: string;
  readonly required: boolean;
}

/** A suite tool: its name, docstring, parameters and whether it reads or writes. */
export interface CorpusTool {
  readonly name: string;
  readonly description: string;
  readonly parameters: readonly CorpusParameter[];
  readonly effect: string;
}

/** A user task: the prompt, its ground truth and the vectors its ground truth exposes. */
export interface CorpusUserTask {
  readonly id: string;
  readonly prompt: string;
  readonly ground_truth_output: string | null;
  readonly ground_truth_calls: readonly CorpusCall[];
  readonly injection_vectors_seen: readonly string[];
}

/** An injection task: the attacker's goal in words and the calls that reach it. */
export interface CorpusInjectionTask {
  readonly id: string;
  readonly goal: string;
  readonly ground_truth_calls: readonly CorpusCall[];
  readonly reconstructed_calls?: readonly CorpusCall[];
}

/** An injection vector: where attack text goes and what is there by default. */
export interface CorpusVector {
  readonly name: string;
  readonly default_text: string;
}

/**
 * The facts of one AgentDojo suite (`libs/storefront/evaluation/agentdojo/<suite>.json`, MIT, see the README
 * there): tools, environment with `{vector}` placeholders, user and injection tasks, vectors, the attack template.
 */
export interface AgentDojoCorpus {
  readonly suite: string;
  readonly tools: readonly CorpusTool[];
  readonly environment: unknown;
  readonly injection_vectors: readonly CorpusVector[];
  readonly user_tasks: readonly CorpusUserTask[];
  readonly injection_tasks: readonly CorpusInjectionTask[];
  readonly attack_templates: { readonly important_instructions: { readonly template: string } };
}

const loaded = new Map<string, AgentDojoCorpus>();

/** The corpus of `suite`, read once from the checked-in data. */
export function agentDojoCorpus(suite: 'slack' | 'workspace'): AgentDojoCorpus {
  if (!loaded.has(suite)) {
    const file = new URL(`../../../evaluation/agentdojo/${suite}.json`, import.meta.url);
    loaded.set(suite, JSON.parse(readFileSync(file, 'utf8')) as AgentDojoCorpus);
  }
  return loaded.get(suite)!;
}

/** The attacker's calls of an injection task: AgentDojo's ground truth, or the corpus's reconstruction when it has none. */
export function attackerCalls(task: CorpusInjectionTask): readonly CorpusCall[] {
  return task.ground_truth_calls.length > 0 ? task.ground_truth_calls : (task.reconstructed_calls ?? []);
}
