import type { CallbackManagerForToolRun } from '@langchain/core/callbacks/manager';
import type { RunnableConfig } from '@langchain/core/runnables';
import { StructuredTool, type StructuredToolInterface } from '@langchain/core/tools';
import type { VerdictPipeline } from '../pipeline/verdict-pipeline.js';
import { notExecutedMessage } from './not-executed-message.js';
import { callWithMalformedInputFallback, toToolContent, toolCallIdOf } from './tool-output.js';

/**
 * The migration bridge: the capability's proposal-stage checks (validation, target resolution, CASL)
 * run first, then the wrapped tool's own handler. No target refresh and no verified confirmation:
 * prefer a bound tool. Evidence says `tool_kind: guarded`.
 */
export class VerdictGuardedTool extends StructuredTool {
  readonly name: string;
  readonly description: string;
  readonly schema: StructuredToolInterface['schema'];

  constructor(
    private readonly wrapped: StructuredToolInterface,
    readonly capability: string,
    private readonly pipeline: VerdictPipeline,
    private readonly publicMessage: string,
  ) {
    super();
    this.name = wrapped.name;
    this.description = wrapped.description;
    this.schema = wrapped.schema;
  }

  override call(arg: unknown, configArg?: RunnableConfig, tags?: string[]): Promise<any> {
    return callWithMalformedInputFallback(
      this,
      () => super.call(arg as never, configArg, tags),
      arg,
      configArg,
      (raw, id) => this.run(raw, id),
    );
  }

  protected async _call(args: unknown, runManager?: CallbackManagerForToolRun, config?: RunnableConfig): Promise<string> {
    return this.run(args, toolCallIdOf(config), runManager);
  }

  private async run(args: unknown, toolCallId: string | undefined, runManager?: CallbackManagerForToolRun): Promise<string> {
    const result = await this.pipeline.guard({ capability: this.capability, arguments: args, toolCallId }, (validated) =>
      this.wrapped.invoke(validated as never, { callbacks: runManager?.getChild() }),
    );
    return result.executed ? toToolContent(result.output) : notExecutedMessage(result, this.publicMessage);
  }
}
