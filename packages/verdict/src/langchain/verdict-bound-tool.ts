import { ToolKind } from '../evidence/tool-kind.js';
import { VerdictTool } from './verdict-tool.js';

/**
 * A LangChain tool whose invocation runs the Verdict pipeline for one capability. It borrows the
 * definition tool's name, description and schema; the definition's own function is never called.
 */
export class VerdictBoundTool extends VerdictTool {
  protected async run(args: unknown, toolCallId: string | undefined): Promise<string> {
    return this.answer(await this.pipeline.execute({ capability: this.capability, arguments: args, toolCallId }, ToolKind.Bound));
  }
}
