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

/**
 * What bound and guarded tools share: the model-facing name, description and schema of an existing tool,
 * malformed input routed to the pipeline (ADR 0004), the answer the model reads back (`publicAnswer`),
 * and application faults that fail the agent run instead of reaching the model (ADR 0014).
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
      // Proposals made here belong to this tool call: a window the tracker made for another call is not theirs.
      answered = asToolCall(ownCallOf(configArg), () =>
        callWithMalformedInputFallback(
          this,
          () => super.call(arg as never, configArg, tags),
          arg,
          configArg,
          (raw, toolCallId) => this.run(raw, toolCallId, undefined, configArg),
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

  protected _call(args: unknown, runManager?: CallbackManagerForToolRun, config?: RunnableConfig): Promise<string> {
    return this.run(args, toolCallIdOf(config), runManager, config);
  }

  /** Runs the proposal through the pipeline; returns the model-facing answer. */
  protected abstract run(
    args: unknown,
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

/** The agent's tool call this invocation answers: its task's `configurable` and the call's id. */
function ownCallOf(config: RunnableConfig | undefined): ProvenanceToolCall | undefined {
  const id = toolCallIdOf(config);
  return id === undefined ? undefined : toolCallOf(config?.configurable, id);
}
