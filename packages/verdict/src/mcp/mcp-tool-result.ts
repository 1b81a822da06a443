import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { CapabilityDefinition } from '../capabilities/capability-definition.js';
import { Disposition } from '../decisions/disposition.js';
import { publicAnswer } from '../public-answer.js';
import type { ExecutionResult } from '../vocabulary/execution-result.js';
import { MCP_APPROVAL_META, MCP_REVIEW_META, type McpPendingApproval, type McpPendingReview } from './mcp-meta.js';

/** The tool call a `tools/call` result answers. */
export interface McpToolCall {
  /** The id it ran under: the client's `_meta["verdict/toolCallId"]`, or the one the server made. */
  readonly toolCallId: string;
  /** Its capability. */
  readonly definition: CapabilityDefinition;
}

/**
 * The `tools/call` result for a pipeline result. The text is always `publicAnswer`: the executor's output, or the
 * fixed `not_executed` answer (never an internal reason). A refusal (`deny`, `throttle`) is a tool error
 * (`isError`); a call waiting for a human is not, and names what it waits for: an approval under
 * `_meta["verdict/approval"]` (`require_confirmation`: tool-call id, reason, expiry, URL; never the receipt id), a
 * reviewer under `_meta["verdict/review"]` (`require_review`: tool-call id, capability, reason; never the item id).
 */
export function mcpToolResult(
  result: ExecutionResult,
  call: McpToolCall,
  publicMessage: string,
  approvalUrl: ((toolCallId: string) => string) | undefined,
): CallToolResult {
  const content = [{ type: 'text' as const, text: publicAnswer(result, publicMessage) }];
  if (result.executed) return { content };
  const { disposition } = result.decision;
  if (disposition === Disposition.RequireReview) {
    // Only a capability's `requiresReview` parks a call of the pipeline: its reason is the one the reviewer reads.
    const review: McpPendingReview = {
      toolCallId: call.toolCallId,
      capability: result.capability,
      reason: call.definition.requiresReview!.reason,
    };
    return { content, _meta: { [MCP_REVIEW_META]: review } };
  }
  const challenge = result.challenge;
  if (disposition !== Disposition.RequireConfirmation || challenge === undefined) return { content, isError: true };
  const approval: McpPendingApproval = {
    toolCallId: challenge.toolCallId,
    capability: challenge.capability,
    reason: challenge.reason,
    description: challenge.description,
    expiresAt: challenge.expiresAt.toISOString(),
    url: approvalUrl?.(challenge.toolCallId) ?? null,
  };
  return { content, _meta: { [MCP_APPROVAL_META]: approval } };
}
