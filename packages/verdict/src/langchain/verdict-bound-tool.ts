import type { CallbackManagerForToolRun } from '@langchain/core/callbacks/manager';
import type { RunnableConfig } from '@langchain/core/runnables';
import { StructuredTool, type StructuredToolInterface } from '@langchain/core/tools';
import { ToolKind } from '../evidence/tool-kind.js';
import type { VerdictPipeline } from '../pipeline/verdict-pipeline.js';
import { notExecutedMessage } from './not-executed-message.js';
import { callWithMalformedInputFallback, toToolContent, toolCallIdOf } from './tool-output.js';

/**
 * A LangChain tool whose invocation runs the Verdict pipeline for one capability. It borrows the
 * definition tool's name, description and schema; the definition's own function is never called.
 */
export class VerdictBoundTool extends StructuredTool {
  readonly name: string;
  readonly description: string;
  readonly schema: StructuredToolInterface['schema'];

  constructor(
    definition: StructuredToolInterface,
    readonly capability: string,
    private readonly pipeline: VerdictPipeline,
    private readonly publicMessage: string,
  ) {
    super();
    this.name = definition.name;
    this.description = definition.description;
    this.schema = definition.schema;
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

  protected async _call(args: unknown, _runManager?: CallbackManagerForToolRun, config?: RunnableConfig): Promise<string> {
    return this.run(args, toolCallIdOf(config));
  }

  private async run(args: unknown, toolCallId: string | undefined): Promise<string> {
    const result = await this.pipeline.execute({ capability: this.capability, arguments: args, toolCallId }, ToolKind.Bound);
    return result.executed ? toToolContent(result.output) : notExecutedMessage(result, this.publicMessage);
  }
}
