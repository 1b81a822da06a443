import { isDeepStrictEqual } from 'node:util';
import type { CallbackManagerForToolRun } from '@langchain/core/callbacks/manager';
import type { RunnableConfig } from '@langchain/core/runnables';
import { ToolInputParsingException, type StructuredToolInterface } from '@langchain/core/tools';
import { interopSafeParseAsync, isInteropZodSchema } from '@langchain/core/utils/types';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { GuardedToolSchemaMismatchError } from '../errors/guarded-tool-schema-mismatch.error.js';
import { isGraphPause } from './graph-pause.js';
import type { VerdictPipeline } from '../pipeline/verdict-pipeline.js';
import { isToolCall, type ToolSchemaOutput, VerdictTool } from './verdict-tool.js';

/** A LangChain structured tool's own function: `_call` (for `tool()` and `DynamicStructuredTool`, their `func`). */
type OwnFunction = (
  input: unknown,
  runManager?: CallbackManagerForToolRun,
  config?: RunnableConfig,
) => Promise<unknown> | unknown;

/**
 * The migration bridge: the capability's proposal-stage checks (validation, target resolution, CASL)
 * run first, then the wrapped tool's own handler. No target refresh and no verified confirmation:
 * prefer a bound tool. Evidence says `tool_kind: guarded`.
 *
 * The pipeline is proposed the model's input; the handler receives the arguments it authorized, the very value, not
 * parsed again by the tool's schema (a transform would run twice: ADR 0192). The tool's schema must agree: what it
 * makes of the model's input, or of those arguments, is those arguments; otherwise `GuardedToolSchemaMismatchError`.
 */
export class VerdictGuardedTool extends VerdictTool {
  constructor(
    private readonly wrapped: StructuredToolInterface,
    capability: string,
    pipeline: VerdictPipeline,
    publicMessage: string,
  ) {
    super(wrapped, capability, pipeline, publicMessage);
    if (isInteropZodSchema(wrapped.schema) && typeof ownFunctionOf(wrapped) !== 'function')
      throw new VerdictConfigurationError(
        `Guarded tool "${wrapped.name}" has a zod schema but no function of its own (_call) Verdict can run without parsing the arguments again: wrap a LangChain StructuredTool (tool(), DynamicStructuredTool), or bind the capability with bound().`,
        { capability },
      );
  }

  protected async run(
    raw: unknown,
    toolSchemaOutput: ToolSchemaOutput | undefined,
    toolCallId: string | undefined,
    runManager?: CallbackManagerForToolRun,
    config?: RunnableConfig,
  ): Promise<string> {
    // LangGraph's interrupt is a pause on the span, not a fault; the claim is still left indeterminate (ADR 0197).
    const result = await this.pipeline.guard(
      { capability: this.capability, arguments: raw, toolCallId },
      (validated) => this.runWrapped(validated, toolSchemaOutput, runManager, config),
      { isPause: isGraphPause },
    );
    return this.answer(result);
  }

  /** The wrapped tool's own handler, with the arguments the pipeline authorized. */
  private async runWrapped(
    validated: unknown,
    toolSchemaOutput: ToolSchemaOutput | undefined,
    runManager: CallbackManagerForToolRun | undefined,
    config: RunnableConfig | undefined,
  ): Promise<unknown> {
    const schema = this.wrapped.schema;
    if (!isInteropZodSchema(schema)) {
      // A JSON Schema is validated, never transformed: the handler gets the validated arguments themselves. Arguments
      // LangChain's invoke would read as a tool call (a schema that keeps unknown keys let `type: 'tool_call'` and
      // `args` through) would run the handler on their `args`, which nobody authorized: refused.
      if (isToolCall(validated))
        throw new GuardedToolSchemaMismatchError(
          this.capability,
          this.name,
          new Error("the arguments read as a tool call (type 'tool_call'), whose args were not authorized"),
        );
      try {
        return await this.wrapped.invoke(validated as never, { callbacks: runManager?.getChild() });
      } catch (error) {
        // Not the model's mistake: the capability accepted these arguments and the tool did not.
        if (error instanceof ToolInputParsingException)
          throw new GuardedToolSchemaMismatchError(this.capability, this.name, error);
        throw error;
      }
    }
    if (toolSchemaOutput === undefined || !isDeepStrictEqual(toolSchemaOutput.value, validated)) {
      const reparsed = await interopSafeParseAsync(schema, validated);
      if (!reparsed.success || !isDeepStrictEqual(reparsed.data, validated))
        throw new GuardedToolSchemaMismatchError(
          this.capability,
          this.name,
          reparsed.success ? new Error('the tool schema makes other arguments of them') : reparsed.error,
        );
    }
    const own = ownFunctionOf(this.wrapped)!;
    return toolContent(this.wrapped, await own.call(this.wrapped, validated, runManager, config), runManager);
  }
}

function ownFunctionOf(tool: StructuredToolInterface): OwnFunction | undefined {
  return (tool as unknown as { _call?: OwnFunction })._call;
}

/**
 * What `invoke` would have answered for the function's result, without a tool call: its content (the first of a
 * `content_and_artifact` pair), a streamed function's return value (each chunk reported, as LangChain does).
 */
async function toolContent(
  tool: StructuredToolInterface,
  result: unknown,
  runManager: CallbackManagerForToolRun | undefined,
): Promise<unknown> {
  let output = result;
  if (isAsyncGenerator(output)) {
    const generator = output;
    try {
      let step = await generator.next();
      while (step.done !== true) {
        await runManager?.handleToolEvent(step.value);
        step = await generator.next();
      }
      output = step.value;
    } finally {
      await generator.return(undefined);
    }
  }
  if ((tool as { responseFormat?: unknown }).responseFormat !== 'content_and_artifact') return output;
  if (Array.isArray(output) && output.length === 2) return output[0];
  throw new Error(`Tool response format is "content_and_artifact" but the output was not a two-tuple.`);
}

function isAsyncGenerator(value: unknown): value is AsyncGenerator<unknown, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { next?: unknown }).next === 'function' &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'
  );
}
