import { Injectable } from '@nestjs/common';
import type { ExecutionResult } from './vocabulary/execution-result.js';
import type { Proposal } from './vocabulary/proposal.js';
import { VerdictPipeline } from './pipeline/verdict-pipeline.js';
import type { InvocationOptions } from './pipeline/pipeline-run.js';
import { ToolKind } from './evidence/tool-kind.js';

/**
 * The pipeline for callers that are not LangChain tools: queues, MCP servers, custom agent loops.
 * The actor and tenant come from the bound action context, never from the proposal.
 *
 * @example
 * const result = await verdict.execute({ capability: 'orders.cancel', arguments: { orderId: 1002 } });
 * return publicAnswer(result, publicMessage); // what the model may read: never result.decision.reason
 */
@Injectable()
export class VerdictService {
  constructor(private readonly pipeline: VerdictPipeline) {}

  /**
   * A dry run: decides (steps 0–9) without executing. Its only durable effect is its decision records
   * (tool kind `evaluation`): it issues no receipt, spends no gate, appends nothing to the provenance
   * ledger and raises no security event.
   */
  evaluate(proposal: Proposal): Promise<ExecutionResult<never>> {
    return this.pipeline.evaluate(proposal);
  }

  /**
   * Decides and, on `permit`, runs the capability's executor once. For a capability that requires
   * confirmation, pass `{ explicitApproval: true }` only when a human explicitly approved this exact
   * tool call (after `ApprovalService.approve`); the receipt is then validated and consumed. Called inside a runtime
   * that pauses by throwing (a LangGraph node), pass its recogniser, `{ isPause: isGraphInterrupt }`: a pause then
   * releases the call's execution claim and is no error on its span (ADR 0177, ADR 0197).
   */
  execute<TOutput = unknown>(proposal: Proposal, options: InvocationOptions = {}): Promise<ExecutionResult<TOutput>> {
    return this.pipeline.execute(proposal, ToolKind.Service, options) as Promise<ExecutionResult<TOutput>>;
  }

  /**
   * Decides now (steps 0–9, as the bound actor) and, on `permit`, queues the proposal for a worker instead
   * of running it: it is parked as an approved review item, and the worker rehydrates the actor and re-runs
   * every step against a fresh target before executing it at most once (docs/review-lane.md). Answers a
   * `permit` at stage `review` that was not executed yet; a capability with `requiresReview` answers
   * `require_review` and waits for its reviewer. Needs `review` in `forRoot` (and `executionClaims` where the queue is
   * worked).
   *
   * A capability that requires confirmation takes the same options as `execute`: without `{ explicitApproval: true }`
   * the answer is `require_confirmation` with its challenge (a pending receipt, joining `approvalBatch` if given) and
   * nothing is queued; with it, once a human approved this exact tool call, the receipt is validated and consumed
   * now, before the item is parked, so the approval is spent exactly once and the worker does not ask again.
   *
   * @example
   * const queued = await verdict.enqueue({ capability: 'exports.run', arguments: { reportId: 9 } });
   */
  enqueue(proposal: Proposal, options: InvocationOptions = {}): Promise<ExecutionResult<never>> {
    return this.pipeline.enqueue(proposal, options);
  }
}
