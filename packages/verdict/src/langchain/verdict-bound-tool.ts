import type { CallbackManagerForToolRun } from '@langchain/core/callbacks/manager';
import type { RunnableConfig } from '@langchain/core/runnables';
import { interrupt, isGraphInterrupt } from '@langchain/langgraph';
import { Logger } from '@nestjs/common';
import { approvalBatchStateOf } from './approval-batch-state.js';
import { VerdictConfigurationError } from '../errors/configuration.error.js';
import { ToolKind } from '../evidence/tool-kind.js';
import type { Proposal } from '../vocabulary/proposal.js';
import { approvalInterrupt, isExplicitApproval } from './approval-resume.js';
import { type ToolSchemaOutput, VerdictTool } from './verdict-tool.js';
import { isGraphPause } from './graph-pause.js';
import { isOwnTask } from './tool-call-task.js';

/**
 * A LangChain tool whose invocation runs the Verdict pipeline for one capability. It borrows the
 * definition tool's name, description and schema; the definition's own function is never called. The pipeline is
 * proposed the model's input as it came (the capability's schema parses it, once): never what the definition's schema
 * made of it (ADR 0192).
 *
 * For a capability that requires confirmation, the call pauses the agent run (a LangGraph interrupt
 * carrying an {@link ApprovalInterrupt}); it executes on resume only when the resume value explicitly
 * approves this tool-call id (`approveToolCall(id)`) and the receipt validates and is consumed.
 */
export class VerdictBoundTool extends VerdictTool {
  /** Whether the missing checkpointer was reported. */
  private warned = false;

  protected async run(
    args: unknown,
    _toolSchemaOutput: ToolSchemaOutput | undefined,
    toolCallId: string | undefined,
    _runManager?: CallbackManagerForToolRun,
    config?: RunnableConfig,
  ): Promise<string> {
    const proposal: Proposal = { capability: this.capability, arguments: args, toolCallId };
    // With the approval-batch middleware, a call of a turn of several is asked in the turn's batch (ADR 0102).
    const batch = toolCallId === undefined ? null : approvalBatchStateOf(config?.configurable);
    const batched = batch !== null && batch.deferred.includes(toolCallId!);
    // A sub-agent its executor runs may pause the run for a human: not a failure, its claim is released (ADR 0177).
    const result = await this.pipeline.execute(proposal, ToolKind.Bound, {
      ...(batched ? { approvalBatch: batch.batchId } : {}),
      isPause: isGraphPause,
    });
    if (result.executed || result.challenge === undefined || toolCallId === undefined) return this.answer(result);
    if (batch?.approved.includes(toolCallId)) return this.answer(await this.executeApproved(proposal));
    // Left for the batch: the middleware pauses the run once for the turn, before the model reads this answer.
    if (batched) return this.answer(result);
    const resume = this.pauseForApproval(result.challenge, toolCallId, config);
    if (!isExplicitApproval(resume, toolCallId)) return this.answer(result);
    return this.answer(await this.executeApproved(proposal));
  }

  /** The run of a call a human approved: its receipt is validated and consumed (steps 10 and 12). */
  private executeApproved(proposal: Proposal) {
    return this.pipeline.execute(proposal, ToolKind.Bound, { explicitApproval: true, isPause: isGraphPause });
  }

  /**
   * Raises the interrupt (the first time: LangGraph pauses the run) or returns the resume value (when
   * the run resumes). Outside a LangGraph run there is no one to ask: the call simply is not executed. Nor in a run
   * without a checkpointer, which cannot pause: that is a setup mistake, logged (once per tool) as a warning.
   * A LangGraph task that runs other calls with this one (`createAgent({ version: 'v1' })`) would run them all again
   * on resume, and hand the resume value to its paused calls by position: it never pauses, it throws
   * `VerdictConfigurationError` before anything of the call is consumed (ADR 0177).
   */
  private pauseForApproval(
    challenge: Parameters<typeof approvalInterrupt>[0],
    toolCallId: string,
    config: RunnableConfig | undefined,
  ): unknown {
    if (isOwnTask(config?.configurable, toolCallId) === false)
      throw new VerdictConfigurationError(
        `${this.capability} requires confirmation, but its tool call runs in one LangGraph task with the other calls of its model turn (createAgent({ version: 'v1' }), or a graph that hands a message of several calls to a ToolNode): resuming that task would run them all again. Use createAgent({ version: 'v2' }) (the default), which runs each tool call as a task of its own (docs/approvals.md, section 3). The call was not executed.`,
        { capability: this.capability },
      );
    try {
      return interrupt(approvalInterrupt(challenge));
    } catch (error) {
      if (isGraphInterrupt(error)) throw error;
      if ((error as { lc_error_code?: unknown } | null)?.lc_error_code === 'MISSING_CHECKPOINTER' && !this.warned) {
        this.warned = true;
        new Logger('Verdict').warn(
          `${this.capability} requires confirmation, but its LangGraph run has no checkpointer and cannot pause for approval: the call is not executed and the model is told so. Give the agent a checkpointer (docs/approvals.md, section 3).`,
        );
      }
      return undefined;
    }
  }
}
