import type { CallbackManagerForToolRun } from '@langchain/core/callbacks/manager';
import type { RunnableConfig } from '@langchain/core/runnables';
import { StructuredTool, type StructuredToolInterface } from '@langchain/core/tools';
import type { ExecutionResult } from '../vocabulary/execution-result.js';
import type { VerdictPipeline } from '../pipeline/verdict-pipeline.js';
import { publicAnswer } from '../public-answer.js';
import { stopAtCallCeiling } from '../budgets/call-ceiling-stop.js';
import { faultForAgent } from './application-fault-propagation.js';
import { callWithMalformedInputFallback } from './malformed-input-fallback.js';
import { toolCallIdOf } from './tool-output.js';
import { asToolCall, type ProvenanceToolCall } from '../provenance/provenance-scope.js';
import { toolCallOf } from './tool-call-of.js';

/** Where {@link VerdictTool.call} leaves the model's own input for `_call`, on the config LangChain hands it. */
const rawInputKey = Symbol('verdict.rawToolInput');

/** What the tool's own schema made of the model's input: `undefined` when that schema rejected it. */
export interface ToolSchemaOutput {
  readonly value: unknown;
}

/**
 * What bound and guarded tools share: the model-facing name, description and schema of an existing tool,
 * malformed input routed to the pipeline (ADR 0004), the answer the model reads back (`publicAnswer`),
 * and application faults that fail the agent run instead of reaching the model (ADR 0014).
 *
 * The pipeline is proposed the model's own input, as `VerdictService.execute` would be: the capability's schema
 * parses it, once (ADR 0192). LangChain parses it with the tool's schema first; that output is not the proposal (a
 * transform would run twice, and a limit would be checked on its output).
 */
export abstract class VerdictTool extends StructuredTool {
  readonly name: string;
  readonly description: string;
  readonly schema: StructuredToolInterface['schema'];

  constructor(
    definition: Pick<StructuredToolInterface, 'name' | 'description' | 'schema'>,
    readonly capability: string,
    protected readonly pipeline: VerdictPipeline,
    private readonly publicMessage: string,
  ) {
    super();
    this.name = definition.name;
    this.description = definition.description;
    this.schema = definition.schema;
  }

  override call(arg: unknown, configArg?: RunnableConfig, tags?: string[]): Promise<any> {
    let answered: Promise<unknown>;
    try {
      const raw = isToolCall(arg) ? arg.args : arg;
      // Proposals made here belong to this tool call: a window the tracker made for another call is not theirs.
      answered = asToolCall(ownCallOf(configArg), () =>
        callWithMalformedInputFallback(
          this,
          () => super.call(arg as never, withRawInput(configArg, raw), tags),
          raw,
          configArg,
          (malformed, toolCallId) => this.run(malformed, undefined, toolCallId, undefined, configArg),
        ),
      );
    } catch (error) {
      answered = Promise.reject(error);
    }
    // An application fault fails the run by itself, as an ApplicationFaultError, with or without
    // applicationFaultMiddleware; every middleware around the tool sees only that (ADR 0014). One promise for the
    // answer, not an async function's two: every bound and guarded call comes through here.
    return answered.catch((error: unknown) => {
      throw faultForAgent(error, configArg, this.capability, this.name);
    });
  }

  protected _call(parsed: unknown, runManager?: CallbackManagerForToolRun, config?: RunnableConfig): Promise<string> {
    // Only `call` reaches here, and it always leaves the raw input: never propose the tool schema's output instead.
    if (config === undefined || !(rawInputKey in config))
      return Promise.reject(new Error(`${this.name}: a Verdict tool is called through invoke() or call()`));
    const raw = (config as Record<typeof rawInputKey, unknown>)[rawInputKey];
    return this.run(raw, { value: parsed }, toolCallIdOf(config), runManager, config);
  }

  /**
   * Runs the proposal through the pipeline; returns the model-facing answer. `raw` is the model's input, the
   * proposal's arguments; `toolSchemaOutput` what the tool's own schema made of it (`undefined`: it was rejected).
   */
  protected abstract run(
    raw: unknown,
    toolSchemaOutput: ToolSchemaOutput | undefined,
    toolCallId: string | undefined,
    runManager?: CallbackManagerForToolRun,
    config?: RunnableConfig,
  ): Promise<string>;

  /**
   * The output as tool content, or the fixed `not_executed` message: never an internal reason. A conversation that
   * reached a call ceiling is not answered: `CallCeilingReachedError` ends the agent run.
   */
  protected answer(result: ExecutionResult): string {
    stopAtCallCeiling(result, this.capability, this.name);
    return publicAnswer(result, this.publicMessage);
  }
}

/** LangChain's test for a whole tool call handed to `call` (its `args` are the input). */
export function isToolCall(arg: unknown): arg is { args: unknown } {
  return typeof arg === 'object' && arg !== null && (arg as { type?: unknown }).type === 'tool_call';
}

/**
 * The config for `super.call` with the raw input on it. LangChain hands `_call` this object (a callbacks list or
 * handler given in its place becomes its `callbacks`, as LangChain reads it); a symbol key is copied by no
 * `ensureConfig`, so it does not reach a nested call.
 */
function withRawInput(configArg: unknown, raw: unknown): RunnableConfig {
  const config =
    configArg === undefined || configArg === null
      ? {}
      : Array.isArray(configArg) || 'name' in (configArg as object)
        ? { callbacks: configArg as RunnableConfig['callbacks'] }
        : { ...(configArg as RunnableConfig) };
  return Object.assign(config, { [rawInputKey]: raw });
}

/** The agent's tool call this invocation answers: its task's `configurable` and the call's id. */
function ownCallOf(config: RunnableConfig | undefined): ProvenanceToolCall | undefined {
  const id = toolCallIdOf(config);
  return id === undefined ? undefined : toolCallOf(config?.configurable, id);
}
