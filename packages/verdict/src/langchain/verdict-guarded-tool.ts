import type { CallbackManagerForToolRun } from '@langchain/core/callbacks/manager';
import { ToolInputParsingException, type StructuredToolInterface } from '@langchain/core/tools';
import { GuardedToolSchemaMismatchError } from '../errors/guarded-tool-schema-mismatch.error.js';
import type { VerdictPipeline } from '../pipeline/verdict-pipeline.js';
import { VerdictTool } from './verdict-tool.js';

/**
 * The migration bridge: the capability's proposal-stage checks (validation, target resolution, CASL)
 * run first, then the wrapped tool's own handler. No target refresh and no verified confirmation:
 * prefer a bound tool. Evidence says `tool_kind: guarded`.
 */
export class VerdictGuardedTool extends VerdictTool {
  constructor(
    private readonly wrapped: StructuredToolInterface,
    capability: string,
    pipeline: VerdictPipeline,
    publicMessage: string,
  ) {
    super(wrapped, capability, pipeline, publicMessage);
  }

  protected async run(
    args: unknown,
    toolCallId: string | undefined,
    runManager?: CallbackManagerForToolRun,
  ): Promise<string> {
    const result = await this.pipeline.guard(
      { capability: this.capability, arguments: args, toolCallId },
      async (validated) => {
        try {
          return await this.wrapped.invoke(validated as never, { callbacks: runManager?.getChild() });
        } catch (error) {
          // Not the model's mistake: the capability accepted these arguments and the tool did not.
          if (error instanceof ToolInputParsingException)
            throw new GuardedToolSchemaMismatchError(this.capability, this.name, error);
          throw error;
        }
      },
    );
    return this.answer(result);
  }
}
