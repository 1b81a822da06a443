import type { ProvenancePolicy, ResultProvenance } from '@verdict/nestjs';
import { z } from 'zod';
import type { AgentDojoCorpus, CorpusParameter, CorpusTool } from './agentdojo-corpus.js';

/**
 * One tool of an AgentDojo suite in its sandbox: the corpus's declaration, and the executor that reads or
 * changes the run's in-memory environment. An executor never throws for a refused input: like AgentDojo's
 * runtime, it answers with the error as text.
 */
export interface SuiteTool<Env> {
  readonly declaration: CorpusTool;
  readonly run: (environment: Env, args: Record<string, unknown>) => unknown;
  /** A consequential tool (it changes the environment or reaches outside it): `mutates` on its capability. */
  readonly consequential: boolean;
}

/** The provenance arm's declarations of one tool: what its results are and its argument rules. */
export interface SuiteToolProvenance {
  readonly results: ResultProvenance;
  readonly policy?: Omit<ProvenancePolicy, 'results'>;
}

/** A suite's executors by tool name: each acts on the run's environment, and says whether it is consequential. */
export type SuiteExecutors<Env> = Readonly<
  Record<
    string,
    { readonly consequential: boolean; readonly run: (environment: Env, args: Record<string, unknown>) => unknown }
  >
>;

/** The corpus's tools, each with its executor; a tool without one is a wiring fault. */
export function suiteTools<Env>(corpus: AgentDojoCorpus, executors: SuiteExecutors<Env>): readonly SuiteTool<Env>[] {
  return corpus.tools.map((declaration) => {
    const executor = executors[declaration.name];
    if (executor === undefined) throw new Error(`the ${corpus.suite} sandbox has no executor for ${declaration.name}`);
    return { declaration, ...executor };
  });
}

/** A tool error as AgentDojo's runtime returns it to the model. */
export class SuiteToolError extends Error {}

/** The executor's answer: its output, or the text of the error it raised. */
export function answerOf(run: () => unknown): unknown {
  try {
    return run() ?? 'None';
  } catch (error) {
    if (error instanceof SuiteToolError) return `ValueError: ${error.message}`;
    throw error;
  }
}

/** The zod schema of a corpus tool's parameters (strings, numbers, booleans, lists and objects of them). */
export function schemaOf(tool: CorpusTool): z.ZodObject<any> {
  return z.object(Object.fromEntries(tool.parameters.map((parameter) => [parameter.name, parameterSchema(parameter)])));
}

function parameterSchema(parameter: CorpusParameter): z.ZodType {
  const [type, ...rest] = parameter.type.split('|').map((part) => part.trim());
  const base = typeSchema(type!).describe(parameter.description);
  return parameter.required && !rest.includes('null') ? base : base.nullish();
}

/** `string`, `array<string>`, `array<object>`, `enum['r', 'rw']`, … */
function typeSchema(type: string): z.ZodType {
  const normalized = type.toLowerCase();
  const array = /^array<(.+)>$/.exec(normalized);
  if (array) return z.array(typeSchema(array[1]!));
  const choices = /^enum\[(.+)\]$/.exec(type);
  if (choices) return z.enum(choices[1]!.split(',').map((choice) => choice.trim().replace(/^'|'$/g, '')) as [string]);
  if (normalized === 'integer' || normalized === 'int') return z.number().int();
  if (normalized === 'number' || normalized === 'float') return z.number();
  if (normalized === 'boolean' || normalized === 'bool') return z.boolean();
  if (normalized === 'object' || normalized === 'dict') return z.record(z.string(), z.unknown());
  return z.string();
}
